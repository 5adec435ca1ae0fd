/* Unsigned comparisons. */
int clamp(int x, int lo, int hi)
{
    if ((unsigned)x < (unsigned)lo)
        return lo;
    if ((unsigned)x > (unsigned)hi && hi >= lo)
        return hi;
    return x;
}
