/* Forgets that hi may be below lo, written another way. */
int clamp(int x, int lo, int hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}
