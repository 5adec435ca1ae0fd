/* Two functions that differ on one argument value in 2^32: concrete probes miss it,
   the symbolic search finds it. */
int needle(int a) { return (a ^ 0x5a5a) * 3 == 1234567 * 3 ? 1 : 0; }
int haystack(int a) { (void)a; return 0; }
