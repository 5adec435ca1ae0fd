/* Calls a function this file does not define: tamarin refuses it, naming `scale`. */
int scale(int);
int scaled_sum(int a, int b) { return scale(a) + scale(b); }
