"""Statistics with no knowledge of judges or tasks: resampling, Bradley-Terry ratings, exact sums, agreement coefficients and paired tests."""
