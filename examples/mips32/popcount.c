/* Two ways to count the bits set in a word: a loop, and the parallel sum. */
int popcount_loop(unsigned x) {
    int n = 0;
    while (x != 0) { n += x & 1; x >>= 1; }
    return n;
}
int popcount_swar(unsigned x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (int)((x * 0x01010101u) >> 24);
}
/* Wrong for words with the top bit set: the loop never sees it. */
int popcount_buggy(unsigned x) {
    int n = 0;
    for (int i = 0; i < 31; i++) n += (x >> i) & 1;
    return n;
}
