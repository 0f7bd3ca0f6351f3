package store_test

import (
	"testing"

	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/store/storetest"
	"cardroom.dev/services/kit/testenv"
)

func TestMemory(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}

func TestRedis(t *testing.T) {
	rdb := testenv.Redis(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
