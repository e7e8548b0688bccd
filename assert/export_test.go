package assert

// SplitArray exposes splitArray to the external tests.
var SplitArray = splitArray
