/* Loops whose trip counts come from the arguments, for proofs for runs of any
   length (compare --unbounded). Built with -fwrapv: signed overflow wraps. */

/* The sum of 5 * i + c for i below n: -O2 strength-reduces 5 * i to a counter
   stepping by 5 and tests it against 5 * n + c. */
int affine_sum(int n, int c) {
    int x = 0;
    for (int i = 0; i < n; i++)
        x = x + 5 * i + c;
    return x;
}

/* The same sum with j stepping by 5 from c. */
int affine_sum_stepped(int n, int c) {
    int x = 0, j = c;
    for (int i = 0; i < n; i++) {
        x = x + j;
        j = j + 5;
    }
    return x;
}

/* Counts n down to 0, adding k each trip. */
int count_down(unsigned n, int k) {
    int s = 0;
    while (n != 0) {
        s += k;
        n--;
    }
    return s;
}

/* Counts i up to n, adding k each trip. */
int count_up(unsigned n, int k) {
    int s = 0;
    for (unsigned i = 0; i != n; i++)
        s += k;
    return s;
}

/* Like count_up, but a run of more than 3,000,000 trips returns one more: a flag
   set on one trip in 2^32 and read after the loop. */
int count_up_needle(unsigned n, int k) {
    int s = 0, seen = 0;
    for (unsigned i = 0; i != n; i++) {
        s += k;
        if (i == 3000000)
            seen = 1;
    }
    return s + seen;
}

/* Like count_up, but a run that goes on after its 3,000,001st trip returns one
   more: no single trip shows the difference, only the state it leaves. */
int count_up_late_needle(unsigned n, int k) {
    int s = 0, seen = 0;
    for (unsigned i = 0; i != n; i++) {
        s += k;
        if (seen == 1)
            seen = 2;
        if (i == 3000000)
            seen = 1;
    }
    return s + (seen == 2);
}

/* Halves x while it is even: runs forever on 0. */
int halvings(int x) {
    int c = 0;
    while (x % 2 == 0) {
        x = x / 2;
        c++;
    }
    return c;
}

/* The last element of the argument's bytes that is at least t, scanning a table on
   the stack: memory written in the loop. */
int last_at_least(unsigned n, int t) {
    int seen = -1;
    int table[4] = {3, 9, 4, 7};
    for (unsigned i = 0; i < n; i++) {
        if (table[i & 3] >= t)
            seen = (int)i;
    }
    return seen;
}

/* Runs forever on 7 and returns 0 otherwise (build it at -O0: an optimiser may drop a
   loop without side effects). */
int spin_on_seven(unsigned n) {
    while (n == 7)
        n = n * 1;
    return 0;
}

/* Returns 0. */
int zero(unsigned n) {
    (void)n;
    return 0;
}

/* A sum over i < n: gcc -O2 strength-reduces it to a pointer stepping by 3 against
   3n + b, so the exits agree only through i <= n. */
unsigned lockstep_sum(unsigned n, unsigned b) {
    unsigned s = 5;
    for (unsigned i = 0; i < n; i++)
        s += 3 * i + b;
    return s;
}

/* The recurrence s = 3s + b, n times. */
unsigned recurrence(unsigned n, unsigned b) {
    unsigned s = 5;
    for (unsigned i = 0; i < n; i++)
        s = s * 3 + b;
    return s;
}

/* The same recurrence unrolled by two: -O2 jumps back into the shared code after the
   loop when n < 2, a backward jump that is no loop. */
unsigned unrolled_by_two(unsigned n, unsigned b) {
    unsigned s = 5, i = 0;
    for (; i + 1 < n; i += 2) {
        s = s * 3 + b;
        s = s * 3 + b;
    }
    if (i < n)
        s = s * 3 + b;
    return s;
}

/* Two loops one after the other: the sum of i below n, then the bits of j below m
   folded in. */
unsigned two_loops(unsigned n, unsigned m) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += i;
    for (unsigned j = 0; j < m; j++)
        s ^= j;
    return s;
}

/* The same, its second loop counting down. */
unsigned two_loops_down(unsigned n, unsigned m) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += i;
    for (unsigned j = m; j != 0; j--)
        s ^= m - j;
    return s;
}

/* Like two_loops, but a second loop of more than 3,000,000 trips folds in one more. */
unsigned two_loops_needle(unsigned n, unsigned m) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += i;
    for (unsigned j = 0; j < m; j++)
        s ^= j + (j == 3000000);
    return s;
}

/* A loop inside a loop: the sum of i ^ j over i below n and j below m. */
unsigned nested(unsigned n, unsigned m) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < m; j++)
            s += i ^ j;
    return s;
}

/* The same, its inner loop counting down. */
unsigned nested_down(unsigned n, unsigned m) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = m; j != 0; j--)
            s += i ^ (m - j);
    return s;
}

/* Returns 0, but runs forever on an odd n: its outer loop steps over n. Each trip of
   the inner loop ends, and the outer loop never comes back to its head without
   going through the inner one (build it at -O0). */
unsigned spin_outer_on_odd(unsigned n, unsigned m) {
    unsigned s = 0;
    for (unsigned i = 0; i != n; i += 2) {
        unsigned j = 0;
        do {
            s += m;
            j++;
        } while (j < 3);
    }
    return s - s;
}

/* n, one at a time, plus b. */
unsigned by_ones(unsigned n, unsigned b) {
    unsigned r = 0;
    for (unsigned k = n; k != 0; k--)
        r++;
    return r + b;
}

/* The same, eight at a time and then one at a time: its loops go round n / 8 and
   n % 8 times, in no fixed ratio to the n trips of by_ones (build both at -O0: -O2
   computes the counts without a loop). */
unsigned by_eights(unsigned n, unsigned b) {
    unsigned r = 0, k = n;
    while (k >= 8) {
        k -= 8;
        r += 8;
    }
    while (k != 0) {
        k--;
        r++;
    }
    return r + b;
}

/* Like by_eights, but one more on trip 3,000,001 of its first loop (an n of at
   least 24,000,016). */
unsigned by_eights_needle(unsigned n, unsigned b) {
    unsigned r = 0, k = n;
    while (k >= 8) {
        k -= 8;
        r += 8 + (r == 24000000);
    }
    while (k != 0) {
        k--;
        r++;
    }
    return r + b;
}

/* Like by_ones, but traps (a division by zero) once n is 1000 or more. */
unsigned by_ones_trap(unsigned n, unsigned b) {
    unsigned r = 0;
    for (unsigned k = n; k != 0; k--)
        r++;
    return (r + b) / (r < 1000);
}

/* The quotient by repeated subtraction (0 for a zero divisor). */
unsigned div_by_subtraction(unsigned n, unsigned d) {
    if (d == 0)
        return 0;
    unsigned q = 0;
    while (n >= d) {
        n -= d;
        q++;
    }
    return q;
}

/* The quotient by `divu` (0 for a zero divisor). */
unsigned div_by_divu(unsigned n, unsigned d) {
    if (d == 0)
        return 0;
    return n / d;
}

/* Like div_by_subtraction, but one more once the quotient passes 3,000,000. */
unsigned div_by_subtraction_needle(unsigned n, unsigned d) {
    if (d == 0)
        return 0;
    unsigned q = 0;
    while (n >= d) {
        n -= d;
        q += 1 + (q == 3000000);
    }
    return q;
}

/* b plus 0 + 1 + ... + (n - 1), one at a time. */
unsigned sum_of_i(unsigned n, unsigned b) {
    unsigned s = b;
    for (unsigned i = 0; i < n; i++)
        s += i;
    return s;
}

/* The same in closed form, n (n - 1) / 2 in 64 bits. */
unsigned sum_closed(unsigned n, unsigned b) {
    unsigned long long m = n;
    return b + (unsigned)(m * (m - 1) / 2);
}

/* A closed form that is wrong once n (n - 1) wraps in 32 bits (n of 65,537 or more):
   it agrees with sum_of_i on every small n. */
unsigned sum_closed_wrapped(unsigned n, unsigned b) {
    return b + n * (n - 1) / 2;
}

/* A sum of 3 i, and its closed form: gcc -O2 multiplies the halved 64-bit product
   by 3 as a shift and an add, each wrapping modulo 2^32. */
unsigned sum_of_3i(unsigned n, unsigned b) {
    unsigned s = b;
    for (unsigned i = 0; i < n; i++)
        s += 3 * i;
    return s;
}

unsigned sum_3_closed(unsigned n, unsigned b) {
    unsigned long long m = n;
    return b + 3 * (unsigned)(m * (m - 1) / 2);
}

/* A sum of 2 i, and its closed form: gcc -O2 keeps only the product's low word and
   clears its low bit, (lo >> 1) << 1, which is the closed form only because
   n (n - 1) is even. */
unsigned sum_of_2i(unsigned n, unsigned b) {
    unsigned s = b;
    for (unsigned i = 0; i < n; i++)
        s += 2 * i;
    return s;
}

unsigned sum_2_closed(unsigned n, unsigned b) {
    unsigned long long m = n;
    return b + 2 * (unsigned)(m * (m - 1) / 2);
}
