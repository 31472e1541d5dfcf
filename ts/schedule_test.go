package ts_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/weftlab/weft/ts"
)

// A schedule's text form parses back to the same schedule (the replay
// tokens of package wefttest rely on it), and whatever ParseSchedule
// accepts prints to a text that parses back to the same moves.
func TestScheduleTextRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		moves := rapid.SliceOf(rapid.Custom(func(t *rapid.T) ts.Move {
			return ts.Move{Thread: ts.Tid(rapid.IntRange(0, ts.MaxThreads).Draw(t, "thread")),
				Outcome: rapid.IntRange(0, 1<<20).Draw(t, "outcome")}
		})).Draw(t, "moves")
		s := ts.Schedule(moves)
		got, err := ts.ParseSchedule(s.String())
		if err != nil || !got.Equal(s) {
			t.Fatalf("ParseSchedule(%q) = %v, %v", s.String(), got, err)
		}
		text := rapid.StringMatching(`\[?[0-9/, \t-]{0,16}\]?`).Draw(t, "text")
		p, err := ts.ParseSchedule(text)
		if err != nil {
			return
		}
		again, err := ts.ParseSchedule(p.String())
		if err != nil || !again.Equal(p) {
			t.Fatalf("%q parses to %v, whose text parses to %v, %v", text, p, again, err)
		}
	})
}

// A schedule's text cut off on its way (an unclosed bracket, nothing at
// all) is refused, not read as a shorter schedule; "[]" is the empty one.
func TestParseScheduleRefusesCutText(t *testing.T) {
	for _, text := range []string{"", "  ", "[", "[0 1 1 1 1 0 0", "0 1]", "[0 1]]", "[[0 1]"} {
		if s, err := ts.ParseSchedule(text); err == nil {
			t.Errorf("ParseSchedule(%q) = %v, want an error", text, s)
		}
	}
	for text, want := range map[string]ts.Schedule{"[]": {}, " [ ] ": {}, "0 1/2": {{Thread: 0}, {Thread: 1, Outcome: 2}}, "[3,1]": ts.ScheduleOf(3, 1)} {
		if s, err := ts.ParseSchedule(text); err != nil || !s.Equal(want) {
			t.Errorf("ParseSchedule(%q) = %v, %v, want %v", text, s, err, want)
		}
	}
}
