package engine

// This file is the one data table of the game: every figure the rulebook prints and every figure a
// ruling invents (marked "ruling"), so a publisher's figure can replace ours in one place.

// tableRow is one row of the rulebook's GAME TABLE.
type tableRow struct {
	rounds  int8 // R: cards in the trump pile, and rounds
	hand    int8 // H: cards dealt to each player
	markers int8 // J: jump markers per player
}

// Data holds every number the engine plays with.
var Data = struct {
	// MinSeats and MaxSeats bound the player count.
	MinSeats, MaxSeats int
	// Table is the GAME TABLE by player count (rulebook).
	Table [7]tableRow
	// DealAll is the hand size when every card is dealt (variants 2, 3, 4, 18, 25). 3p-5p from the
	// rulebook; 6p is ruling V2.
	DealAll [7]int8
	// CostlyMarkers is the jump markers per player in Costly Absence (variant 4, rulebook).
	CostlyMarkers [7]int8
	// CostlyPenalty is the end penalty by jumps used in Costly Absence (variant 4, rulebook).
	CostlyPenalty [5]int
	// Factions maps colour (green, yellow, red, blue) and rank class (A = ranks 1,4,7,10;
	// B = 2,5,8,11; C = 3,6,9,12) to a faction (ruling F1): 0 Frogs, 1 Ducks, 2 Horses, 3 Pigs,
	// 4 Bears, 5 Birds.
	Factions [4][3]int8
	// Score* give the points of a faction row by its card count (index = cards, 0-12; counts
	// above 8 are reachable only with Wild Bomb).
	// ScoreBase: rulebook 1-6; ruling S1: 7 -> 10, 8 -> 15; ruling: 9-12 continue the triangular
	// series (21, 28, 36, 45).
	ScoreBase [13]int
	// ScoreInnocent is variant 9: rulebook 1-6; ruling V9: 7 -> 28, 8 -> 36; ruling: 9-12 continue
	// the series.
	ScoreInnocent [13]int
	// ScoreSoaped is variant 10 (rulebook): 6 or more -> 10.
	ScoreSoaped [13]int
	// BombEach and BombAll are ruling S2: each captured bomb scores BombEach; a play area holding
	// all four bombs scores BombAll for them instead.
	BombEach, BombAll int
	// Fugitives is the number of cards set aside in Fugitive Frogs (variant 14), and the number of
	// last rounds without trump.
	Fugitives int8
	// PileCount and PileSize shape the trump cards in Four Piles and Blind Pile (variants 21, 22).
	PileCount, PileSize int8
}{
	MinSeats: 3,
	MaxSeats: 6,
	Table: [7]tableRow{
		3: {rounds: 16, hand: 12, markers: 4},
		4: {rounds: 12, hand: 10, markers: 2},
		5: {rounds: 12, hand: 8, markers: 4},
		6: {rounds: 10, hand: 7, markers: 3},
	},
	DealAll:       [7]int8{3: 17, 4: 13, 5: 10, 6: 8},
	CostlyMarkers: [7]int8{3: 4, 4: 4, 5: 4, 6: 3},
	CostlyPenalty: [5]int{0, -1, -3, -6, -10},
	Factions: [4][3]int8{
		{4, 5, 0}, // green: A Bears, B Birds, C Frogs
		{1, 5, 2}, // yellow: A Ducks, B Birds, C Horses
		{2, 3, 4}, // red: A Horses, B Pigs, C Bears
		{0, 3, 1}, // blue: A Frogs, B Pigs, C Ducks
	},
	ScoreBase:     [13]int{0, 1, 3, 6, -1, -3, -6, 10, 15, 21, 28, 36, 45},
	ScoreInnocent: [13]int{0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78},
	ScoreSoaped:   [13]int{0, 1, 3, 6, -3, -6, 10, 10, 10, 10, 10, 10, 10},
	BombEach:      -2,
	BombAll:       10,
	Fugitives:     5,
	PileCount:     4,
	PileSize:      4,
}
