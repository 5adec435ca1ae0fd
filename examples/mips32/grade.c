/* A switch that gcc turns into a jump table, and calls between functions. */
static int bonus(int late) { return late > 3 ? -10 : 5 - late; }
int letter(int score, int late) {
    int s = score + bonus(late);
    switch (s / 10) {
    case 10: case 9: return 'A';
    case 8: return 'B';
    case 7: return 'C';
    case 6: return 'D';
    default: return 'F';
    }
}
