/* Integer functions of one to four arguments, in the style of published C
   equivalence benchmarks: branches, loops bounded by masks or clamps (and one not
   bounded), divisions, bit tricks and a small array. `scripts/bench-mips32-corpus.sh`
   compares each at -O0 against -O2, and against its changed twin in changed.c. */
int sign3(int x, int y) { int r; if (x > y) r = 1; else if (x < y) r = -1; else r = 0; if (r == 0 && x == 0) r = 2; return r; }
int max3(int a, int b, int c) { int m = a; if (b > m) m = b; if (c > m) m = c; return m; }
int abs_diff(int a, int b) { return a > b ? a - b : b - a; }
int sum_to(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
int sum_small(int n) { int s = 0; n &= 15; for (int i = 0; i < n; i++) s += i * i; return s; }
int gcd(int a, int b) { a &= 255; b &= 255; while (b != 0) { int t = a % b; a = b; b = t; } return a; }
int digits(int x) { unsigned u = x; int d = 0; do { d++; u /= 10; } while (u); return d; }
int bits(unsigned x) { int c = 0; while (x) { c += x & 1; x >>= 1; } return c; }
int collatz(int n) { n = (n & 63) + 1; int k = 0; while (n != 1 && k < 200) { n = (n & 1) ? 3*n+1 : n/2; k++; } return k; }
int power(int b, int e) { int r = 1; e &= 31; while (e > 0) { if (e & 1) r *= b; b *= b; e >>= 1; } return r; }
int mod_mix(int a, int b) { if (b == 0) return 0; return (a % b) + (a / b) * 3; }
int tri(int n) { if (n < 0) return 0; if (n > 1000) n = 1000; return n * (n + 1) / 2; }
int tri_loop(int n) { if (n < 0) return 0; if (n > 1000) n = 1000; int s = 0; for (int i = 1; i <= n; i++) s += i; return s; }
int fib(int n) { n &= 31; int a = 0, b = 1; for (int i = 0; i < n; i++) { int t = a + b; a = b; b = t; } return a; }
int arr(int i, int v) { int a[8] = {0}; a[i & 7] = v; int s = 0; for (int k = 0; k < 8; k++) s += a[k] * k; return s; }
