/* Byte and halfword memory: arrays of chars and shorts on the stack and in .data,
   indexed by the arguments, and unaligned words (gcc copies packed fields with
   lwl/lwr and swl/swr). */

static unsigned char table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
static short shorts[8] = {-1, 2, -300, 400, 5, -6000, 7, 32767};
static const char message[] = "tamarin";

struct __attribute__((packed)) packed {
    char tag;
    int value;
};

int pick_byte(unsigned i) { return table[i & 15]; }

int pick_short(unsigned i) { return shorts[i & 7]; }

int pick_char(unsigned i) { return message[i % 7]; }

/* Writes bytes at an input-dependent place on the stack, then sums a window. */
int scribble(unsigned i, int v, unsigned j) {
    signed char buf[8] = {0};
    buf[i & 7] = (signed char)v;
    buf[(i + 3) & 7] = (signed char)(v >> 8);
    return buf[j & 7] + 2 * buf[(j + 1) & 7];
}

/* Halfwords spliced into a word. */
int halves(int a, int b) {
    union { int word; short half[2]; unsigned char byte[4]; } u;
    u.word = a;
    u.half[1] = (short)b;
    u.byte[0] ^= 0x5a;
    return u.word;
}

/* A packed field: unaligned loads and stores. */
int unaligned(int a, int b) {
    struct packed p[2];
    p[0].tag = (char)b;
    p[0].value = a;
    p[1].tag = 1;
    p[1].value = b + p[0].value;
    return p[1].value ^ p[0].tag;
}

/* The same as `unaligned`, without the packed structure. */
int aligned_too(int a, int b) {
    return (b + a) ^ (int)(signed char)b;
}

/* Out of the table for large i: reads past it into whatever follows. */
int past_the_table(unsigned i) { return table[i % 64]; }
