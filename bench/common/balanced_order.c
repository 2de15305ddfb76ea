#include "balanced_order.h"

/* Row 0 is 0, 1, n-1, 2, n-2, ...; row k is row 0 plus k (mod n); for an odd n the rows n .. 2n-1
 * are the first n read backwards. */
int balanced_method(int round, int place, int n) {
  const int rows = n % 2 ? 2 * n : n, row = round % rows;
  const int at = row >= n ? n - 1 - place : place;
  const int first = at == 0 ? 0 : at % 2 ? (at + 1) / 2 : n - at / 2;
  return (first + row % n) % n;
}
