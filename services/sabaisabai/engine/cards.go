package engine

// The deck (Ruling D1): four copies of each rank 1–14, four jokers and the Ass Joker, 61 cards.
// Inside the engine a card is an id 0–60 so that knowledge can follow each physical card; across
// the API a card is its number (1–14, Joker, AssJoker).
const (
	NumCards = 61
	// Joker is the number of a joker (−4 points).
	Joker = 15
	// AssJoker is the number of the Ass Joker (0 points).
	AssJoker = 16

	assID   = 60
	noCard  = 0xFF
	maxSeat = 12
	rowSize = 4
)

// Function card numbers.
const (
	Peek   = 11
	Spy    = 12
	Give   = 13
	Switch = 14
)

// number is the card number of id: 1–14, Joker or AssJoker.
func number(id uint8) uint8 {
	switch {
	case id < 56:
		return id/4 + 1
	case id < assID:
		return Joker
	default:
		return AssJoker
	}
}

// class is what "identical" means for throwing and for four together: the rank, with the Ass
// Joker counting as a joker ("burned" onto a joker).
func class(n uint8) uint8 {
	if n == AssJoker {
		return Joker
	}
	return n
}

// Points is the card points of a card number.
func Points(n uint8) int {
	switch n {
	case Joker:
		return -4
	case AssJoker:
		return 0
	default:
		return int(n)
	}
}

// isFunction reports whether a card number has an effect when played or thrown.
func isFunction(n uint8) bool { return n >= Peek && n <= Switch }
