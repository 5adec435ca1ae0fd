/* The assignment: clamp x into [lo, hi] (hi < lo: return lo). */
int clamp(int x, int lo, int hi)
{
    if (x < lo)
        return lo;
    if (x > hi && hi >= lo)
        return hi;
    return x;
}
