//go:build race

package por_test

// auditRace says the test binary runs under the race detector.
const auditRace = true
