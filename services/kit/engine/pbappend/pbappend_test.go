package pbappend_test

import (
	"bytes"
	"strings"
	"testing"

	"cardroom.dev/services/kit/engine/pbappend"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestMatchesMarshal: fields written with the package are the bytes proto.Marshal writes, for
// zero and non-zero scalars, negative ints, and nested messages short and long (a length of two
// bytes moves the content).
func TestMatchesMarshal(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 1 << 40} {
		want, _ := proto.Marshal(wrapperspb.UInt64(v))
		if got := pbappend.Uint(nil, 1, v); !bytes.Equal(got, want) {
			t.Errorf("Uint %d: %x, want %x", v, got, want)
		}
	}
	for _, v := range []int32{0, -1, 5, -300} {
		want, _ := proto.Marshal(wrapperspb.Int32(v))
		if got := pbappend.Int(nil, 1, int64(v)); !bytes.Equal(got, want) {
			t.Errorf("Int %d: %x, want %x", v, got, want)
		}
	}
	for _, v := range []bool{false, true} {
		want, _ := proto.Marshal(wrapperspb.Bool(v))
		if got := pbappend.Bool(nil, 1, v); !bytes.Equal(got, want) {
			t.Errorf("Bool %v: %x, want %x", v, got, want)
		}
	}
	// google.protobuf.Method: name = 1, request_type_url = 2; Api: methods = 2 (messages).
	for _, n := range []int{0, 3, 125, 126, 200, 20000} {
		name := strings.Repeat("m", n)
		want, err := proto.Marshal(&apipb.Api{Name: "a", Methods: []*apipb.Method{{Name: name, RequestStreaming: true}}})
		if err != nil {
			t.Fatal(err)
		}
		b := []byte("prefix")
		b = append(b, 0x0a, 1, 'a')
		b, at := pbappend.Open(b, 2)
		if n > 0 {
			b = append(b, 0x0a)
			b = appendLen(b, n)
			b = append(b, name...)
		}
		b = pbappend.Bool(b, 3, true)
		b = pbappend.Close(b, at)
		if got := b[len("prefix"):]; !bytes.Equal(got, want) || string(b[:len("prefix")]) != "prefix" {
			t.Errorf("nested message with a %d-byte name: %x, want %x", n, got, want)
		}
	}
	// google.protobuf.SourceCodeInfo.Location: path = 1, packed; FieldDescriptorProto: number = 3,
	// with presence (proto2).
	for _, vs := range [][]uint8{nil, {0}, {1, 2, 200}} {
		loc := &descriptorpb.SourceCodeInfo_Location{}
		for _, v := range vs {
			loc.Path = append(loc.Path, int32(v))
		}
		want, _ := proto.Marshal(loc)
		if got := pbappend.Packed(nil, 1, vs); !bytes.Equal(got, want) {
			t.Errorf("Packed %v: %x, want %x", vs, got, want)
		}
	}
	for _, v := range []int32{0, 300} {
		want, _ := proto.Marshal(&descriptorpb.FieldDescriptorProto{Number: proto.Int32(v)})
		if got := pbappend.Present(nil, 3, uint64(v)); !bytes.Equal(got, want) {
			t.Errorf("Present %d: %x, want %x", v, got, want)
		}
	}
	want, _ := proto.Marshal(&structpb.Value{Kind: &structpb.Value_StructValue{StructValue: &structpb.Struct{}}})
	if got := pbappend.Empty(nil, 5); !bytes.Equal(got, want) {
		t.Errorf("Empty: %x, want %x", got, want)
	}
}

func appendLen(b []byte, n int) []byte {
	for n >= 1<<7 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}
