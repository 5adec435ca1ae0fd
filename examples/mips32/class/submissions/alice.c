int clamp(int x, int lo, int hi)
{
    if (hi < lo)
        return x < lo ? lo : x;
    if (x < lo)
        return lo;
    if (x > hi)
        return hi;
    return x;
}
