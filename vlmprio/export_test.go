package vlmprio

// PairWinFraction exports pairWinFraction to the external tests.
var PairWinFraction = pairWinFraction
