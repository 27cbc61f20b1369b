// SPDX-License-Identifier: GPL-2.0
#include "nice.h"

#include <math.h>

double nice_ceil(double max)
{
	double p, m;

	if (!(max > 0))
		return 1;
	p = pow(10, floor(log10(max)));
	m = max / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}
