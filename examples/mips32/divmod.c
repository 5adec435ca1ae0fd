/* Quotient plus remainder, with and without a guard against division by zero. */
int divmod(int a, int b) { return b != 0 && !(a == -2147483647 - 1 && b == -1) ? a / b + a % b : 0; }
int divmod_unguarded(int a, int b) { return a / b + a % b; }
