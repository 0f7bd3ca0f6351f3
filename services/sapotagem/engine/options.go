package engine

import (
	"fmt"
	"strings"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"cardroom.dev/services/kit/engine"
)

// Codes of refused tables.
const (
	CodeIncompatibleVariants = "INCOMPATIBLE_VARIANTS"
	CodeVariantSeatCount     = "VARIANT_SEAT_COUNT"
)

// variantNames are the options' field names, by variant number.
var variantNames = [numVariants + 1]string{"",
	"under_arrest", "frogs_on_duty", "ace_up_the_sleeve", "costly_absence", "double_agent",
	"agency_together", "agency_clever", "agency_double", "innocent_or_guilty", "soaped_frog",
	"frog_back_in_the_game", "spy_initiative", "open_information", "fugitive_frogs",
	"negotiating_frogs", "wild_bomb", "remote_control_bomb", "planting_information",
	"closed_information", "anonymous_help", "four_piles", "blind_pile", "weak_frog",
	"frog_hiding_the_game", "planting_more_information",
}

// VariantName is the option field of variant v (1-25).
func VariantName(v int) string { return variantNames[v] }

// variantsOf turns options into a bit set (bit v = variant v).
func variantsOf(o *pb.Options) uint32 {
	on := [numVariants + 1]bool{false,
		o.GetUnderArrest(), o.GetFrogsOnDuty(), o.GetAceUpTheSleeve(), o.GetCostlyAbsence(),
		o.GetDoubleAgent(), o.GetAgencyTogether(), o.GetAgencyClever(), o.GetAgencyDouble(),
		o.GetInnocentOrGuilty(), o.GetSoapedFrog(), o.GetFrogBackInTheGame(), o.GetSpyInitiative(),
		o.GetOpenInformation(), o.GetFugitiveFrogs(), o.GetNegotiatingFrogs(), o.GetWildBomb(),
		o.GetRemoteControlBomb(), o.GetPlantingInformation(), o.GetClosedInformation(),
		o.GetAnonymousHelp(), o.GetFourPiles(), o.GetBlindPile(), o.GetWeakFrog(),
		o.GetFrogHidingTheGame(), o.GetPlantingMoreInformation(),
	}
	var m uint32
	for v, b := range on {
		if b {
			m |= 1 << v
		}
	}
	return m
}

// OptionsOf is the inverse of variantsOf: the options with the given variants on.
func OptionsOf(variants ...int) *pb.Options {
	o := &pb.Options{}
	set := [numVariants + 1]*bool{nil,
		&o.UnderArrest, &o.FrogsOnDuty, &o.AceUpTheSleeve, &o.CostlyAbsence,
		&o.DoubleAgent, &o.AgencyTogether, &o.AgencyClever, &o.AgencyDouble,
		&o.InnocentOrGuilty, &o.SoapedFrog, &o.FrogBackInTheGame, &o.SpyInitiative,
		&o.OpenInformation, &o.FugitiveFrogs, &o.NegotiatingFrogs, &o.WildBomb,
		&o.RemoteControlBomb, &o.PlantingInformation, &o.ClosedInformation,
		&o.AnonymousHelp, &o.FourPiles, &o.BlindPile, &o.WeakFrog,
		&o.FrogHidingTheGame, &o.PlantingMoreInformation,
	}
	for _, v := range variants {
		if v < 1 || v > numVariants {
			panic(fmt.Sprintf("no variant %d", v))
		}
		*set[v] = true
	}
	return o
}

// schemeVariants decide where the trump comes from and how the cards are dealt: at most one.
var schemeVariants = []int{vUnderArrest, vFrogsOnDuty, vAceUpTheSleeve, vCostlyAbsence,
	vFugitiveFrogs, vPlanting, vFourPiles, vBlindPile, vWeakFrog, vHidingTheGame, vPlantingMore}

// exclusive pairs refused together, beyond the one-scheme rule; why is in the docs.
var exclusivePairs = [][2]int{
	{vAgencyTogether, vAgencyClever}, {vAgencyTogether, vAgencyDouble}, {vAgencyClever, vAgencyDouble},
	{vDoubleAgent, vAgencyDouble},
	{vInnocentOrGuilty, vSoapedFrog},
	{vOpenInformation, vClosedInformation},
	{vNegotiatingFrogs, vRemoteBomb},
}

// jumpVariants need jump markers; noJumpVariants have none.
var (
	jumpVariants   = []int{vFrogBack, vSpyInitiative, vNegotiatingFrogs, vRemoteBomb}
	noJumpVariants = []int{vFrogsOnDuty, vAceUpTheSleeve, vPlanting, vPlantingMore}
	// pileVariants need the sequential trump pile: only the base scheme or Fugitive Frogs.
	pileVariants = []int{vOpenInformation, vClosedInformation, vAnonymousHelp}
)

func variantLabel(v int) string { return fmt.Sprintf("%d (%s)", v, variantNames[v]) }

// CheckOptions refuses a player count or a variant combination the engine cannot play, naming
// the count or the variants.
func CheckOptions(seats int, variants uint32) *engine.Violation {
	on := func(v int) bool { return variants&(1<<v) != 0 }
	if seats < Data.MinSeats || seats > Data.MaxSeats {
		return engine.Invalid("seats", engine.CodeBadSeatCount,
			"sapotagem is played by %d to %d players, not %d", Data.MinSeats, Data.MaxSeats, seats)
	}
	refusePair := func(a, b int, why string) *engine.Violation {
		return engine.Invalid("options", CodeIncompatibleVariants, "variants %s and %s cannot be combined: %s",
			variantLabel(a), variantLabel(b), why)
	}
	var schemes []int
	for _, v := range schemeVariants {
		if on(v) {
			schemes = append(schemes, v)
		}
	}
	if len(schemes) > 1 {
		return refusePair(schemes[0], schemes[1], "both decide how the cards are dealt and where the trump comes from")
	}
	for _, p := range exclusivePairs {
		if on(p[0]) && on(p[1]) {
			return refusePair(p[0], p[1], "their rules contradict each other")
		}
	}
	for _, a := range jumpVariants {
		for _, b := range noJumpVariants {
			if on(a) && on(b) {
				return refusePair(a, b, fmt.Sprintf("%s needs jump markers and %s has none", variantNames[a], variantNames[b]))
			}
		}
	}
	for _, a := range pileVariants {
		for _, b := range schemes {
			if on(a) && b != vFugitiveFrogs {
				return refusePair(a, b, fmt.Sprintf("%s needs the face-down trump pile that %s replaces", variantNames[a], variantNames[b]))
			}
		}
	}
	for _, v := range []int{vAgencyTogether, vAgencyClever, vAgencyDouble} {
		if on(v) && seats != 4 && seats != 6 {
			return engine.Invalid("seats", CodeVariantSeatCount, "variant %s needs 4 or 6 players, not %d", variantLabel(v), seats)
		}
	}
	for _, v := range []int{vFourPiles, vBlindPile} {
		if on(v) && seats != 3 {
			return engine.Invalid("seats", CodeVariantSeatCount, "variant %s needs 3 players, not %d", variantLabel(v), seats)
		}
	}
	if on(vFugitiveFrogs) && Data.Table[seats].rounds <= Data.Fugitives {
		return engine.Invalid("seats", CodeVariantSeatCount, "variant %s needs more than %d rounds", variantLabel(vFugitiveFrogs), Data.Fugitives)
	}
	return nil
}

// describeVariants lists the variants on, for summaries.
func describeVariants(variants uint32) string {
	var names []string
	for v := 1; v <= numVariants; v++ {
		if variants&(1<<v) != 0 {
			names = append(names, variantNames[v])
		}
	}
	if len(names) == 0 {
		return "base game"
	}
	return strings.Join(names, ", ")
}
