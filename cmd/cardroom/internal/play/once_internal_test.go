package play

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestOnceRetriesLostAnswers: a create is tried again after UNAVAILABLE or DEADLINE_EXCEEDED, up to
// three times more, and not after any other answer.
func TestOnceRetriesLostAnswers(t *testing.T) {
	defer func(w time.Duration) { retryWait = w }(retryWait)
	retryWait = time.Millisecond
	for _, tc := range []struct {
		answers []codes.Code
		calls   int
		want    codes.Code
	}{
		{[]codes.Code{codes.Unavailable, codes.DeadlineExceeded, codes.OK}, 3, codes.OK},
		{[]codes.Code{codes.Unavailable, codes.Unavailable, codes.Unavailable, codes.Unavailable, codes.OK}, 4, codes.Unavailable},
		{[]codes.Code{codes.InvalidArgument, codes.OK}, 1, codes.InvalidArgument},
	} {
		calls := 0
		err := once(t.Context(), func() error {
			c := tc.answers[calls]
			calls++
			if c == codes.OK {
				return nil
			}
			return status.Error(c, "answer")
		})
		if calls != tc.calls || status.Code(err) != tc.want {
			t.Errorf("answers %v: %d calls ending %v, want %d ending %v", tc.answers, calls, err, tc.calls, tc.want)
		}
	}
}
