package gateway

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

	"cardroom.dev/gateway/lobby"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// SignIn opens a session as a guest or with a credential (see identity.go).
func (s *Server) SignIn(ctx context.Context, req *gatewayv1.SignInRequest) (*gatewayv1.SignInResponse, error) {
	if proto.Size(req) > s.opt.MaxRequestBytes {
		return nil, refusal.Invalid("", refusal.TooLarge, "the request is larger than %d bytes", s.opt.MaxRequestBytes)
	}
	// Before a session there is no player: sign-ins are limited per client address.
	host := clientAddr(ctx, s.opt.TrustedProxies)
	if host != "" {
		if !s.limits.allow(ctx, "addr:"+host) {
			s.metrics.refusals.Add(ctx, 1, reasonRateLimited)
			return nil, refusal.New(codes.ResourceExhausted, refusal.RateLimited, "too many sign-ins; slow down")
		}
	}
	// An empty name is "not given" (a returning player keeps theirs); a given one must not be blank.
	name := req.GetDisplayName()
	if name != "" || req.GetCredential() == nil {
		var err error
		if name, err = checkDisplayName(name); err != nil {
			return nil, err
		}
	}
	in := signedIn{player: newID("p-"), name: name, isNew: true}
	if req.GetCredential() != nil {
		var err error
		if in, err = s.signInWith(ctx, req, name, host); err != nil {
			if st, ok := status.FromError(err); ok && st.Code() == codes.Unauthenticated {
				s.metrics.refusals.Add(ctx, 1, reasonUnauthenticated)
			}
			return nil, s.toStatus(ctx, err)
		}
	}
	tok, exp := s.sessions.issue(in.player, in.name)
	return &gatewayv1.SignInResponse{PlayerId: in.player, SessionToken: tok, ExpiresAt: timestamppb.New(exp),
		NewPlayer: in.isNew, DisplayName: in.name}, nil
}

func (s *Server) RefreshSession(ctx context.Context, req *gatewayv1.RefreshSessionRequest) (*gatewayv1.RefreshSessionResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	tok, exp, err := s.sessions.refresh(sess)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.RefreshSessionResponse{SessionToken: tok, ExpiresAt: timestamppb.New(exp)}, nil
}

// SignOut revokes the caller's session: every token of its sign-in, until the latest any of them
// could expire (the TTL from now, within the maximum age).
func (s *Server) SignOut(ctx context.Context, req *gatewayv1.SignOutRequest) (*gatewayv1.SignOutResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	now := s.now()
	until := now.Add(s.opt.SessionTTL)
	if end := sess.SignedIn.Add(s.opt.SessionMaxAge); until.After(end) {
		until = end
	}
	if until.Before(sess.Expires) {
		until = sess.Expires
	}
	if err := s.sessions.revoked.revoke(ctx, sess.ID, now, until); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &gatewayv1.SignOutResponse{}, nil
}

func (s *Server) ListGames(ctx context.Context, _ *gatewayv1.ListGamesRequest) (*gatewayv1.ListGamesResponse, error) {
	resp := &gatewayv1.ListGamesResponse{DefaultMaxWait: durationpb.New(s.opt.TicketMaxWait)}
	for game := range s.rules {
		d, err := s.describe(ctx, game)
		if err != nil {
			s.log.WarnContext(ctx, "a rules service does not answer", "game", game, "error", err)
			continue
		}
		resp.Games = append(resp.Games, &gatewayv1.GameInfo{Game: d.GetGame(), MinSeats: d.GetMinSeats(), MaxSeats: d.GetMaxSeats(),
			OptionsType: d.GetOptionsType(), ActionType: d.GetActionType(), ViewType: d.GetViewType(),
			UsualSeats: cmp.Or(d.GetUsualSeats(), d.GetMaxSeats()), DefaultOptions: d.GetDefaultOptions()})
	}
	slices.SortFunc(resp.Games, func(a, b *gatewayv1.GameInfo) int {
		if a.GetGame() < b.GetGame() {
			return -1
		}
		return 1
	})
	return resp, nil
}

// checkOptions makes sure options are the game's options message (the rules service checks the rest).
func checkOptions(d *rulesv1.DescribeGameResponse, opts *anypb.Any) ([]byte, error) {
	if opts == nil {
		return nil, nil
	}
	if string(opts.MessageName()) != d.GetOptionsType() {
		return nil, refusal.Invalid("options", refusal.WrongGame, "options must be a %s", d.GetOptionsType())
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(opts)
}

func checkTableID(id string) error { return checkID("table_id", id) }

// checkID refuses an id that no table or ticket can have. The gateway makes ids of letters,
// digits and '-', and they become parts of NATS subjects, where '.', '*', '>' and spaces have
// meanings of their own: "t-1.>" would listen to other tables' notices.
func checkID(field, id string) error {
	if id == "" {
		return refusal.Invalid(field, refusal.MissingField, "%s is required", field)
	}
	if len(id) > 64 {
		return refusal.Invalid(field, refusal.InvalidField, "%s is too long", field)
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return refusal.Invalid(field, refusal.InvalidField, "%s %q has a character no id has: only letters, digits, '-' and '_'", field, id)
		}
	}
	return nil
}

func (s *Server) CreateTable(ctx context.Context, req *gatewayv1.CreateTableRequest) (*gatewayv1.CreateTableResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := s.createTable(ctx, sess, req)
	return resp, s.toStatus(ctx, err)
}

func (s *Server) createTable(ctx context.Context, sess Session, req *gatewayv1.CreateTableRequest) (*gatewayv1.CreateTableResponse, error) {
	d, err := s.describe(ctx, req.GetGame())
	if err != nil {
		return nil, err
	}
	capacity := int(req.GetSeats())
	if capacity == 0 {
		capacity = int(d.GetMaxSeats())
	}
	if capacity < int(d.GetMinSeats()) || capacity > int(d.GetMaxSeats()) {
		return nil, refusal.Invalid("seats", refusal.InvalidField, "%s is played by %d to %d players", d.GetGame(), d.GetMinSeats(), d.GetMaxSeats())
	}
	opts, err := checkOptions(d, req.GetOptions())
	if err != nil {
		return nil, err
	}
	perAction := req.GetTimeLimits().GetPerAction().AsDuration()
	if perAction < 0 {
		return nil, refusal.Invalid("time_limits.per_action", refusal.InvalidField, "the time per action cannot be negative")
	}
	if err := refusal.CheckBotLevel("takeover_level", req.GetTakeoverLevel()); err != nil {
		return nil, err
	}
	rid := req.GetRequestId()
	if len(rid) > maxRequestID {
		return nil, refusal.Invalid("request_id", refusal.InvalidField, "request_id must be at most %d bytes", maxRequestID)
	}
	for range 8 {
		t := lobby.Table{
			ID: newID("t-"), Game: req.GetGame(), Owner: sess.Player, State: lobby.TableOpen, Capacity: capacity,
			Players: []lobby.Player{{ID: sess.Player, Name: sess.Name}}, InviteCode: newCode(),
			Options: opts, PerAction: perAction, Takeover: int(levelOf(req.GetTakeoverLevel())), CreatedAt: s.now(),
			Public: req.GetPublic(),
		}
		t.Deadline = t.CreatedAt.Add(openTableTTL)
		var err error
		if rid == "" {
			err = s.lobby.CreateTable(ctx, t, openTableTTL)
		} else {
			once := lobby.Once{Key: onceKey(sess, rid), Call: callDigest("CreateTable", req), ID: t.ID}
			var prior lobby.Once
			var found bool
			prior, found, err = s.lobby.CreateTableOnce(ctx, t, openTableTTL, once, s.requestIDKeep())
			if err == nil && found {
				return s.createdTable(ctx, sess, prior, once.Call)
			}
		}
		if errors.Is(err, lobby.ErrExists) {
			continue // an invite code collision: draw again
		}
		if err != nil {
			return nil, err
		}
		t.Version = 1
		return &gatewayv1.CreateTableResponse{TableId: t.ID, InviteCode: t.InviteCode, Table: tableProto(&t, sess.Player)}, nil
	}
	return nil, errors.New("could not draw a free invite code")
}

// createdTable answers a retried CreateTable: the table its request id created, as it is now.
func (s *Server) createdTable(ctx context.Context, sess Session, prior lobby.Once, call string) (*gatewayv1.CreateTableResponse, error) {
	if prior.Call != call {
		return nil, requestIDReused()
	}
	t, err := s.lobby.LoadTable(ctx, prior.ID)
	if errors.Is(err, lobby.ErrNotFound) {
		return nil, refusal.New(codes.NotFound, refusal.TableNotFound, "the table this request id created has ended and is forgotten")
	}
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CreateTableResponse{TableId: t.ID, InviteCode: t.InviteCode, Table: tableProto(&t, sess.Player)}, nil
}

// requestIDKeep is how long a request id of a call that creates (CreateTable, EnqueueTicket) is
// remembered, unless the retention of finished tables is shorter: a retry within it creates
// nothing. Retries come within seconds; the records of a busy hour are one small key per call.
const requestIDKeep = time.Hour

func (s *Server) requestIDKeep() time.Duration { return min(requestIDKeep, s.opt.Retention) }

// onceKey names a player's request id in the lobby.
func onceKey(sess Session, requestID string) string { return sess.Player + ":" + requestID }

// callDigest identifies a request without its request id: a retry has the same, a request id
// reused for another request another. Fields are encoded deterministically.
func callDigest(method string, req proto.Message) string {
	c := proto.Clone(req)
	if f := c.ProtoReflect().Descriptor().Fields().ByName("request_id"); f != nil {
		c.ProtoReflect().Clear(f)
	}
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	sum := sha256.Sum256(b)
	return method + ":" + hex.EncodeToString(sum[:16])
}

func requestIDReused() error {
	return refusal.Invalid("request_id", refusal.RequestIDReused, "request_id was already used for another request")
}

// tableProto describes t to player (the invite code only to its players).
func tableProto(t *lobby.Table, player string) *gatewayv1.Table {
	out := &gatewayv1.Table{TableId: t.ID, Game: t.Game, OwnerPlayerId: t.Owner, Capacity: uint32(t.Capacity),
		TakeoverLevel: storedLevel(t.Takeover), Public: t.Public, CreatedAt: timestamp(t.CreatedAt),
		StartedAt: timestamp(t.StartedAt)}
	if t.State == lobby.TableFinished {
		out.FinishedAt = timestamp(t.FinishedAt)
	}
	switch t.State {
	case lobby.TableOpen:
		out.State = gatewayv1.TableState_TABLE_STATE_OPEN
	case lobby.TableDealt, lobby.TableStarting:
		// Starting: the seats are fixed and the deal under way (Watch waits for it).
		out.State = gatewayv1.TableState_TABLE_STATE_PLAYING
	case lobby.TableFinished:
		out.State = gatewayv1.TableState_TABLE_STATE_FINISHED
	case lobby.TableClosed, lobby.TableClosing:
		out.State = gatewayv1.TableState_TABLE_STATE_CLOSED
	}
	member := false
	for _, p := range t.Players {
		out.Players = append(out.Players, playerRef(p))
		member = member || p.ID == player
	}
	for i, p := range t.Seats {
		out.Seats = append(out.Seats, &gamev1.Seat{Index: uint32(i), Player: playerRef(p)})
		if p.ID == player && !p.Bot {
			out.YourSeat = proto.Uint32(uint32(i))
		}
	}
	if member && t.State == lobby.TableOpen {
		out.InviteCode = t.InviteCode
	}
	if len(t.Options) > 0 {
		a := &anypb.Any{}
		if proto.Unmarshal(t.Options, a) == nil {
			out.Options = a
		}
	}
	if t.PerAction > 0 {
		out.TimeLimits = &gamev1.TimeLimits{PerAction: durationpb.New(t.PerAction)}
	}
	return out
}

// timestamp is t, or nil when zero.
func timestamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func playerRef(p lobby.Player) *gamev1.PlayerRef {
	if p.Bot {
		return &gamev1.PlayerRef{PlayerId: p.ID, DisplayName: p.Name, Kind: gamev1.PlayerKind_PLAYER_KIND_BOT, BotLevel: storedLevel(p.Level)}
	}
	return &gamev1.PlayerRef{PlayerId: p.ID, DisplayName: p.Name, Kind: gamev1.PlayerKind_PLAYER_KIND_HUMAN}
}

// levelOf is the level a request asks for: unspecified is normal. The request's level has been
// checked (refusal.CheckBotLevel).
func levelOf(l gamev1.BotLevel) gamev1.BotLevel {
	if l == gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED {
		return gamev1.BotLevel_BOT_LEVEL_NORMAL
	}
	return l
}

// storedLevel is the level of a stored level number: 0 (records written before bots had levels)
// is normal.
func storedLevel(l int) gamev1.BotLevel { return levelOf(gamev1.BotLevel(l)) }

// updateTable applies fn to the table and writes it, again on a lost race. fn returns the ttl, or
// errUnchanged to have the table answered as loaded, without a write.
func (s *Server) updateTable(ctx context.Context, id string, fn func(t *lobby.Table) (time.Duration, error)) (*lobby.Table, error) {
	for range 32 {
		t, err := s.lobby.LoadTable(ctx, id)
		if errors.Is(err, lobby.ErrNotFound) {
			return nil, tableNotFound()
		}
		if err != nil {
			return nil, err
		}
		ttl, err := fn(&t)
		if errors.Is(err, errUnchanged) {
			return &t, nil
		}
		if err != nil {
			return nil, err
		}
		err = s.lobby.UpdateTable(ctx, t, ttl)
		if errors.Is(err, lobby.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		t.Version++
		s.notify(s.bus.Subjects().TableNotice(id))
		return &t, nil
	}
	return nil, lobby.ErrConflict
}

func mustBeOpen(t *lobby.Table) error {
	if t.State != lobby.TableOpen {
		return refusal.New(codes.FailedPrecondition, refusal.TableStarted, "the table has started or closed")
	}
	return nil
}

func (s *Server) JoinTable(ctx context.Context, req *gatewayv1.JoinTableRequest) (*gatewayv1.JoinTableResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	var id string
	switch {
	case req.GetInviteCode() != "" && req.GetTableId() != "":
		return nil, refusal.Invalid("table_id", refusal.InvalidField, "give invite_code or table_id, not both")
	case req.GetTableId() != "":
		if id, err = publicTable(ctx, s.lobby, req.GetTableId()); err != nil {
			return nil, s.toStatus(ctx, err)
		}
	case req.GetInviteCode() == "":
		return nil, refusal.Invalid("invite_code", refusal.MissingField, "invite_code (or a public table's table_id) is required")
	default:
		id, err = s.lobby.TableByCode(ctx, req.GetInviteCode())
		if errors.Is(err, lobby.ErrNotFound) {
			return nil, refusal.New(codes.NotFound, refusal.TableNotFound, "no table has this invite code")
		}
		if err != nil {
			return nil, s.toStatus(ctx, err)
		}
	}
	t, err := s.updateTable(ctx, id, func(t *lobby.Table) (time.Duration, error) {
		// Already there (a retry whose answer was lost, say): the join is in effect.
		if t.State == lobby.TableOpen && slices.ContainsFunc(t.Players, func(p lobby.Player) bool { return p.ID == sess.Player }) ||
			t.SeatOf(sess.Player) >= 0 {
			return 0, errUnchanged
		}
		if err := mustBeOpen(t); err != nil {
			return 0, err
		}
		if len(t.Players) >= t.Capacity {
			return 0, refusal.New(codes.FailedPrecondition, refusal.TableFull, "the table is full")
		}
		t.Players = append(t.Players, lobby.Player{ID: sess.Player, Name: distinctName(sess.Name, t.Players)})
		return 0, nil
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &gatewayv1.JoinTableResponse{Table: tableProto(t, sess.Player)}, nil
}

func (s *Server) LeaveTable(ctx context.Context, req *gatewayv1.LeaveTableRequest) (*gatewayv1.LeaveTableResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := checkTableID(req.GetTableId()); err != nil {
		return nil, err
	}
	t, err := s.updateTable(ctx, req.GetTableId(), func(t *lobby.Table) (time.Duration, error) {
		if err := mustBeOpen(t); err != nil {
			return 0, err
		}
		i := slices.IndexFunc(t.Players, func(p lobby.Player) bool { return p.ID == sess.Player })
		if i < 0 {
			return 0, refusal.New(codes.FailedPrecondition, refusal.NotThere, "you are not at this table")
		}
		t.Players = slices.Delete(t.Players, i, i+1)
		if sess.Player == t.Owner {
			t.State, t.Deadline = lobby.TableClosed, s.now().Add(time.Hour)
			return time.Hour, nil
		}
		return 0, nil
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &gatewayv1.LeaveTableResponse{Table: tableProto(t, sess.Player)}, nil
}

func (s *Server) AddBots(ctx context.Context, req *gatewayv1.AddBotsRequest) (*gatewayv1.AddBotsResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := checkTableID(req.GetTableId()); err != nil {
		return nil, err
	}
	if req.GetCount() == 0 {
		return nil, refusal.Invalid("count", refusal.InvalidField, "count must be at least 1")
	}
	if len(req.GetRequestId()) > maxRequestID {
		return nil, refusal.Invalid("request_id", refusal.InvalidField, "request_id must be at most %d bytes", maxRequestID)
	}
	if err := refusal.CheckBotLevel("level", req.GetLevel()); err != nil {
		return nil, err
	}
	level := levelOf(req.GetLevel())
	call := fmt.Sprintf("AddBots:%d", req.GetCount())
	if level != gamev1.BotLevel_BOT_LEVEL_NORMAL {
		// Normal bots keep the call's former form: a retry across an upgrade is still a retry.
		call += ":" + level.String()
	}
	t, err := s.updateTable(ctx, req.GetTableId(), func(t *lobby.Table) (time.Duration, error) {
		if t.Owner != sess.Player {
			return 0, refusal.New(codes.PermissionDenied, refusal.NotOwner, "only the table's owner may add bots")
		}
		if id := req.GetRequestId(); id != "" {
			// The bots and the request id are written together: finding the id means the bots are there.
			if r, ok := t.Request(id); ok {
				if r.Call != call {
					return 0, refusal.Invalid("request_id", refusal.RequestIDReused, "request_id was already used at this table for another request")
				}
				return 0, errUnchanged
			}
		}
		if err := mustBeOpen(t); err != nil {
			return 0, err
		}
		if len(t.Players)+int(req.GetCount()) > t.Capacity {
			return 0, refusal.New(codes.FailedPrecondition, refusal.TableFull, "the table has %d free places", t.Capacity-len(t.Players))
		}
		t.Players = append(t.Players, bots(int(req.GetCount()), len(t.Players), level)...)
		if id := req.GetRequestId(); id != "" {
			t.Remember(lobby.Request{ID: id, Call: call})
		}
		return 0, nil
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &gatewayv1.AddBotsResponse{Table: tableProto(t, sess.Player)}, nil
}

// maxRequestID bounds a request id (a table remembers up to lobby.MaxRequests of them).
const maxRequestID = 128

// bots are n new bots of level, named from the from-th letter on.
func bots(n, from int, level gamev1.BotLevel) []lobby.Player {
	out := make([]lobby.Player, n)
	for i := range out {
		out[i] = lobby.Player{ID: newID("bot-"), Name: "Bot " + string(rune('A'+(from+i)%26)), Bot: true, Level: int(level)}
	}
	return out
}

// shuffled is players in a random seat order, from a fresh random seed.
func shuffled(players []lobby.Player) []lobby.Player {
	var seed [32]byte
	_, _ = rand.Read(seed[:])
	r := mrand.New(mrand.NewChaCha8(seed))
	out := slices.Clone(players)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (s *Server) StartTable(ctx context.Context, req *gatewayv1.StartTableRequest) (*gatewayv1.StartTableResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := checkTableID(req.GetTableId()); err != nil {
		return nil, err
	}
	t, err := s.startTable(ctx, sess, req.GetTableId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &gatewayv1.StartTableResponse{Table: tableProto(t, sess.Player)}, nil
}

func (s *Server) startTable(ctx context.Context, sess Session, id string) (*lobby.Table, error) {
	// Subscribed before the write: the owner's deal may come at once.
	wake, stop, err := s.subscribe(s.bus.Subjects().TableNotice(id))
	if err != nil {
		return nil, err
	}
	defer stop()
	recorded := false
	t, err := s.updateTable(ctx, id, func(t *lobby.Table) (time.Duration, error) {
		recorded = false
		if t.Owner != sess.Player {
			return 0, refusal.New(codes.PermissionDenied, refusal.NotOwner, "only the table's owner may start it")
		}
		switch t.State {
		case lobby.TableStarting, lobby.TableDealt, lobby.TableFinished:
			// Started already (a retry whose answer was lost, say): answered once dealt.
			return 0, errUnchanged
		}
		if err := mustBeOpen(t); err != nil {
			return 0, err
		}
		d, err := s.describe(ctx, t.Game)
		if err != nil {
			return 0, err
		}
		if len(t.Players) < int(d.GetMinSeats()) {
			return 0, refusal.New(codes.FailedPrecondition, refusal.TooFewPlayers, "%s needs at least %d players", t.Game, d.GetMinSeats())
		}
		// Recorded as starting, with its seats: from here the table's owner deals it.
		t.Seats, t.State, t.Refusal = shuffled(t.Players), lobby.TableStarting, nil
		t.StartedAt = s.now()
		t.Deadline = s.now().Add(startTimeout)
		recorded = true
		return playingTableTTL, nil
	})
	if err != nil {
		return nil, err
	}
	if recorded && s.halted(id, stepRecorded) {
		return nil, status.Error(codes.Unavailable, "the gateway is stopping")
	}
	s.kickDriver()
	return s.awaitDeal(ctx, t, wake)
}

func (s *Server) GetTable(ctx context.Context, req *gatewayv1.GetTableRequest) (*gatewayv1.GetTableResponse, error) {
	sess, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := checkTableID(req.GetTableId()); err != nil {
		return nil, err
	}
	t, err := s.lobby.LoadTable(ctx, req.GetTableId())
	if errors.Is(err, lobby.ErrNotFound) {
		return nil, tableNotFound()
	}
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &gatewayv1.GetTableResponse{Table: tableProto(&t, sess.Player)}, nil
}

// table is a started table's record (cached: its seats never change).
func (s *Server) table(ctx context.Context, id string) (*lobby.Table, error) {
	if err := checkTableID(id); err != nil {
		return nil, err
	}
	if t, ok := s.started.Load(id); ok {
		return t.(*lobby.Table), nil
	}
	t, err := s.lobby.LoadTable(ctx, id)
	if errors.Is(err, lobby.ErrNotFound) {
		return nil, tableNotFound()
	}
	if err != nil {
		return nil, err
	}
	if t.State != lobby.TableDealt && t.State != lobby.TableFinished {
		return nil, refusal.New(codes.FailedPrecondition, refusal.TableNotStarted, "the table has not started")
	}
	s.remember(&t)
	return &t, nil
}

// maxRemembered bounds the cache of started tables; past it the cache starts over.
const maxRemembered = 100_000

func (s *Server) remember(t *lobby.Table) {
	if _, loaded := s.started.LoadOrStore(t.ID, t); loaded {
		return
	}
	if s.remembered.Add(1) > maxRemembered {
		s.started.Clear()
		s.remembered.Store(0)
	}
}

// finish records that a table is over, as its owner learned from its TableFinished event: the lobby
// record expires with the retention, and the table leaves the owned set.
func (s *Server) finish(ctx context.Context, id string) error {
	_, err := s.updateTable(ctx, id, func(t *lobby.Table) (time.Duration, error) {
		if t.State == lobby.TableFinished {
			return 0, errAlready
		}
		t.State, t.FinishedAt = lobby.TableFinished, s.now()
		t.Deadline = t.FinishedAt.Add(s.opt.Retention)
		return s.opt.Retention, nil
	})
	if err != nil && !errors.Is(err, errAlready) {
		return err
	}
	return s.lobby.DropDrive(ctx, id)
}

var errAlready = errors.New("already done")

// errUnchanged, from an updateTable function, answers the table as it is: the request is already
// in effect (a retry), nothing to write.
var errUnchanged = errors.New("unchanged")

// Lobby records expire: an open table a day after its last change, a table in play after a week
// (a game left without time limits and without players ends there), a finished one after the
// retention, like its log.
const (
	openTableTTL    = 24 * time.Hour
	playingTableTTL = 7 * 24 * time.Hour
)
