package stats

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestOptionsFromTheCaller: a table's options are decoded with the option messages the caller
// named (NewAggregator), and only with those.
func TestOptionsFromTheCaller(t *testing.T) {
	opts, err := anypb.New(wrapperspb.UInt32(3))
	if err != nil {
		t.Fatal(err)
	}
	if got := OptionUsage(opts, DefaultAggregator.Options); !slices.Equal(got, []string{"(undecodable)=google.protobuf.UInt32Value"}) {
		t.Errorf("without games: %v", got)
	}
	if got := OptionUsage(opts, NewAggregator(&wrapperspb.StringValue{}).Options); !slices.Equal(got, []string{"(undecodable)=google.protobuf.UInt32Value"}) {
		t.Errorf("with another game's options: %v", got)
	}
	if got := OptionUsage(opts, NewAggregator(nil, &wrapperspb.UInt32Value{}, &wrapperspb.UInt32Value{}).Options); !slices.Equal(got, []string{"value=3"}) {
		t.Errorf("with the game's options: %v", got)
	}
	if got := OptionUsage(nil, nil); !slices.Equal(got, []string{"(defaults)="}) {
		t.Errorf("no options: %v", got)
	}
}
