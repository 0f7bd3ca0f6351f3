package play

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cardroom.dev/client"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"google.golang.org/protobuf/proto"
)

type stage int

const (
	stageConnecting stage = iota // signing in, finding the table
	stageLobby                   // the player's own private table, open
	stagePlaying
	stageFinished
)

func (s stage) String() string {
	return [...]string{"connecting", "lobby", "playing", "finished"}[s]
}

// model is the screen: everything the player sees, redrawn in place after every change.
type model struct {
	ctx context.Context
	s   *session

	stage    stage
	status   string // one line on what is going on
	player   string
	gameName string
	game     game // nil: a game this client does not know (shown in text form)
	table    string
	invite   string
	owner    bool // at the player's own open table
	resumed  bool

	seats    *seating
	view     proto.Message
	version  uint64
	deadline time.Time
	viewBusy bool // a GetView is on its way
	viewMore bool // and another is wanted after it

	log      []string
	moves    moves
	menu     menu
	acting   bool // a move is on its way
	answered int  // moves sent and answered, played or refused

	outcome *gamev1.Outcome

	width, height int
	now           func() time.Time
	err           error // what ended the client, when not the player
	left          bool  // the player quit
	observe       func(Snapshot)
}

// Messages from the screen's own calls.
type (
	sessionMsg struct{ tea.Msg }
	viewMsg    struct {
		r   *gatewayv1.GetViewResponse
		err error
	}
	actedMsg struct {
		r   *gatewayv1.ActResponse
		err error
	}
	lobbyCallMsg struct {
		what string
		err  error
	}
	tickMsg time.Time
)

func newModel(ctx context.Context, s *session) *model {
	return &model{ctx: ctx, s: s, gameName: s.opt.Game, game: games[s.opt.Game], now: time.Now,
		status: "signing in to " + s.opt.Addr}
}

func (m *model) listen() tea.Cmd {
	ch := m.s.msgs
	return func() tea.Msg { return sessionMsg{<-ch} }
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *model) Init() tea.Cmd { return tea.Batch(m.listen(), tick()) }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if m.observe != nil {
		m.observe(m.snapshot())
	}
	return m, cmd
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		return m.key(msg.String())
	case tickMsg:
		return tick()
	case sessionMsg:
		return tea.Batch(m.fromSession(msg.Msg), m.listen())
	case viewMsg:
		m.viewBusy = false
		if msg.err != nil {
			m.status = "the view: " + describe(msg.err)
		} else {
			m.setView(msg.r)
		}
		if m.viewMore {
			m.viewMore = false
			return m.fetchView()
		}
	case actedMsg:
		m.acting = false
		m.answered++
		if msg.err != nil {
			// The list stays until the stream shows the table past it: after a stale refusal its
			// events and the new list are on their way; after another refusal it is still the list.
			m.status = "refused: " + describe(msg.err)
			return nil
		}
		m.status = ""
		// Played: the list played from is past (the stream may already have brought the next one,
		// which stays).
		m.moves.saw(msg.r.GetVersion())
		if m.moves.actions == nil {
			m.menu = menu{}
		}
	case lobbyCallMsg:
		if msg.err != nil {
			m.status = msg.what + ": " + describe(msg.err)
		} else {
			m.status = msg.what
		}
	}
	return nil
}

func (m *model) fromSession(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case statusMsg:
		m.status = string(msg)
	case signedInMsg:
		m.player = msg.player
		m.status = fmt.Sprintf("signed in as player %s", msg.player)
	case lobbyMsg:
		m.stage, m.owner, m.table, m.invite = stageLobby, true, msg.table, msg.invite
		m.status = ""
	case tableMsg:
		m.table, m.resumed, m.gameName, m.game = msg.table, msg.resumed, msg.game, games[msg.game]
		switch {
		case msg.resumed:
			m.status = "back at table " + msg.table
		case msg.joined:
			m.status = "joined table " + msg.table + "; waiting for its owner to start"
		case m.stage != stageLobby:
			m.status = "matched: table " + msg.table
		}
	case watchMsg:
		return m.watched(msg.u)
	case lostMsg:
		m.status = "connection lost (" + describe(msg.err) + "); reconnecting …"
	case fatalMsg:
		m.err = msg.err
		return tea.Quit
	}
	return nil
}

// watched takes one update of the Watch stream: events, then a list of moves.
func (m *model) watched(u client.Update) tea.Cmd {
	if u.Resumed && strings.HasPrefix(m.status, "connection lost") {
		m.status = ""
	}
	view := false
	for _, e := range u.Events {
		view = m.event(e) || view
	}
	if c := u.Choices; c != nil {
		before := m.cursorWords()
		had := m.moves.actions != nil
		if m.moves.offerChoices(*c) {
			m.menu.follow(m.game, &m.moves, before)
			if !had {
				m.menu.hidden = false
			}
		}
	}
	if view {
		return m.fetchView()
	}
	return nil
}

// event takes one event; true when the table changed (its view is to be fetched).
func (m *model) event(e *eventsv1.Event) bool {
	if m.stage < stagePlaying {
		m.stage = stagePlaying
		m.status = ""
	}
	before := m.cursorWords()
	m.moves.saw(e.GetVersion())
	if m.moves.actions == nil {
		m.menu = menu{hidden: m.menu.hidden}
	} else {
		m.menu.follow(m.game, &m.moves, before)
	}
	if e.GetPayload().MessageIs(&eventsv1.TableFinished{}) {
		f := &eventsv1.TableFinished{}
		_ = e.GetPayload().UnmarshalTo(f)
		m.outcome = f.GetOutcome()
		m.stage = stageFinished
		m.moves.clear()
		return true
	}
	if e.GetPayload().MessageIs(&eventsv1.TableCreated{}) {
		return false
	}
	m.log = append(m.log, m.eventWords(e))
	if len(m.log) > maxLog {
		m.log = m.log[len(m.log)-maxLog:]
	}
	return true
}

const maxLog = 500

// eventWords is an event in words: the gateway's label, else the game's words for it (its seats
// named when the log is shown), else its text form.
func (m *model) eventWords(e *eventsv1.Event) string {
	w := eventLabel(e)
	if w == "" && m.game != nil {
		if p, err := e.GetPayload().UnmarshalNew(); err == nil {
			w = m.game.describeEvent(p)
		}
	}
	if w == "" {
		w = textOf(e.GetPayload())
	}
	if _, private := e.GetVisibility().GetAudience().(*eventsv1.Visibility_Seat); private {
		w += "  (only you see this)"
	}
	return w
}

// fetchView asks for the view, one call at a time: changes while one is on its way ask for one
// more after it.
func (m *model) fetchView() tea.Cmd {
	if m.viewBusy {
		m.viewMore = true
		return nil
	}
	m.viewBusy = true
	t, ctx := m.s.table(), m.ctx
	return func() tea.Msg {
		r, err := t.View(ctx)
		return viewMsg{r, err}
	}
}

func (m *model) setView(r *gatewayv1.GetViewResponse) {
	if r.GetVersion() < m.version {
		return
	}
	m.version = r.GetVersion()
	if v, err := r.GetView().UnmarshalNew(); err == nil {
		m.view = v
	}
	m.deadline = time.Time{}
	if r.GetDeadline() != nil {
		m.deadline = r.GetDeadline().AsTime()
	}
	st := &seating{you: -1}
	if r.Seat != nil {
		st.you = int(r.GetSeat())
	}
	for _, seat := range r.GetTable().GetConfig().GetSeats() {
		i := int(seat.GetIndex())
		for len(st.names) <= i {
			st.names = append(st.names, "")
			st.bots = append(st.bots, false)
			st.levels = append(st.levels, gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED)
		}
		st.names[i] = seat.GetPlayer().GetDisplayName()
		st.bots[i] = seat.GetPlayer().GetKind() == gamev1.PlayerKind_PLAYER_KIND_BOT
		st.levels[i] = seat.GetPlayer().GetBotLevel()
	}
	if st.you >= 0 && (m.seats == nil || m.seats.you != st.you) && m.stage == stagePlaying {
		seat := st.you
		_ = m.s.store.saveSeat(seatRecord{Addr: m.s.opt.Addr, Game: m.gameName, Table: m.table, Seat: &seat})
	}
	m.seats = st
}

func (m *model) key(k string) tea.Cmd {
	if k == "ctrl+c" || (k == "q" && m.stage != stageFinished) {
		m.left = true
		return tea.Quit
	}
	switch m.stage {
	case stageFinished:
		if k == "q" || k == "enter" || k == "esc" {
			return tea.Quit
		}
	case stageLobby:
		switch k {
		case "b":
			return m.addBot()
		case "s":
			return m.start()
		}
	case stagePlaying:
		return m.playKey(k)
	}
	return nil
}

func (m *model) addBot() tea.Cmd {
	t, ctx := m.s.table(), m.ctx
	level := m.s.opt.Bots
	m.status = "adding a bot …"
	return func() tea.Msg {
		t, err := t.AddBots(ctx, 1, level)
		if err != nil {
			return lobbyCallMsg{"adding a bot", err}
		}
		return lobbyCallMsg{fmt.Sprintf("%d of %d places taken (a %s bot added)", len(t.GetPlayers()), t.GetCapacity(), levelName(level)), nil}
	}
}

func (m *model) start() tea.Cmd {
	t, ctx := m.s.table(), m.ctx
	m.status = "starting …"
	return func() tea.Msg {
		_, err := t.Start(ctx)
		if err != nil {
			return lobbyCallMsg{"starting", err}
		}
		return lobbyCallMsg{"started", nil}
	}
}

func (m *model) cursorWords() string {
	es := m.menu.entries(m.game, &m.moves)
	if m.menu.cursor < len(es) {
		return es[m.menu.cursor].words
	}
	return ""
}

func (m *model) playKey(k string) tea.Cmd {
	es := m.menu.entries(m.game, &m.moves)
	switch k {
	case "v":
		return m.fetchView()
	case "m", "?":
		m.menu = menu{}
		if es == nil {
			m.status = "no moves for you now: the list shows when you may act"
		}
		return nil
	}
	if es == nil || m.menu.hidden {
		return nil
	}
	switch k {
	case "up", "k":
		m.menu.cursor = (m.menu.cursor + len(es) - 1) % len(es)
		m.menu.typed = ""
	case "down", "j":
		m.menu.cursor = (m.menu.cursor + 1) % len(es)
		m.menu.typed = ""
	case "enter", "right", "l":
		if n, err := strconv.Atoi(m.menu.typed); err == nil && n >= 1 && n <= len(es) {
			m.menu.cursor = n - 1
		}
		return m.choose(es)
	case "esc", "backspace", "left", "h":
		switch {
		case m.menu.typed != "":
			m.menu.typed = m.menu.typed[:len(m.menu.typed)-1]
		case m.menu.group != "":
			m.menu = menu{}
		case k == "esc":
			m.menu.hidden = true
		}
	default:
		if len(k) != 1 || k[0] < '0' || k[0] > '9' {
			return nil
		}
		typed := m.menu.typed + k
		n, _ := strconv.Atoi(typed)
		if n < 1 || n > len(es) {
			m.status = fmt.Sprintf("type 1 to %d", len(es))
			m.menu.typed = ""
			return nil
		}
		m.menu.cursor = n - 1
		if n*10 > len(es) {
			// No longer number starts with these digits: that is the choice.
			return m.choose(es)
		}
		m.menu.typed = typed
	}
	return nil
}

// choose takes the entry under the cursor: a group opens its moves, a move is played.
func (m *model) choose(es []entry) tea.Cmd {
	m.menu.typed = ""
	e := es[m.menu.cursor]
	if e.index < 0 {
		m.menu.group, m.menu.cursor = e.group, 0
		return nil
	}
	if m.acting {
		return nil
	}
	m.acting = true
	m.status = "playing " + e.words + " …"
	t, ctx := m.s.table(), m.ctx
	action, v := m.moves.actions[e.index], m.moves.version
	return func() tea.Msg {
		// A new action id, sent again with the same id if the answer is lost on the way.
		r, err := t.Act(ctx, action, client.AtVersion(v))
		return actedMsg{r, err}
	}
}

var (
	bold    = lipgloss.NewStyle().Bold(true)
	faint   = lipgloss.NewStyle().Faint(true)
	accent  = lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true)
	alert   = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	chosen  = lipgloss.NewStyle().Reverse(true)
	ruleSty = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
)

func (m *model) rule(title string) string {
	w := max(m.width, 40)
	line := "── " + title + " "
	return ruleSty.Render(line + strings.Repeat("─", max(w-lipgloss.Width(line), 0)))
}

func (m *model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.WindowTitle = "cardroom · " + displayName(m.gameName)
	return v
}

func (m *model) screen() string {
	var top strings.Builder
	head := "cardroom · " + displayName(m.gameName)
	if m.table != "" {
		head += " · table " + m.table
	}
	top.WriteString(accent.Render(head) + "\n")
	switch m.stage {
	case stageConnecting:
		top.WriteString(m.status + "\n" + faint.Render("q: quit") + "\n")
		return top.String()
	case stageLobby:
		fmt.Fprintf(&top, "your private table is open; invite code %s\n", bold.Render(m.invite))
		top.WriteString("others join with: cardroom play " + m.gameName + " --join " + m.invite + "\n")
		top.WriteString(faint.Render("b: add a bot · s: start · q: quit") + "\n")
		if m.status != "" {
			top.WriteString(alert.Render(m.status) + "\n")
		}
		return top.String()
	}
	top.WriteString(m.seatsLine() + "\n")
	var below strings.Builder // the moves (or the results) and the status
	if m.stage == stageFinished {
		below.WriteString(m.rule("game over") + "\n")
		below.WriteString(m.results())
		below.WriteString(faint.Render("q or enter: leave") + "\n")
	} else {
		below.WriteString(m.movesText())
	}
	if m.status != "" {
		below.WriteString(alert.Render(m.status) + "\n")
	}
	if m.view != nil {
		table := strings.Split(strings.TrimRight(m.tableText(), "\n"), "\n")
		// On a short terminal the table gives way to the moves and a few lines of the log.
		if m.height > 0 {
			room := m.height - strings.Count(top.String(), "\n") - 1 - strings.Count(below.String(), "\n") - 4
			if len(table) > room {
				room = max(room-1, 3)
				table = append(table[:min(room, len(table))], faint.Render(fmt.Sprintf("… %d more lines: a taller terminal shows the whole table", len(table)-room)))
			}
		}
		top.WriteString(m.rule("table") + "\n")
		top.WriteString(strings.Join(table, "\n") + "\n")
	}
	top.WriteString(below.String())
	screen := top.String()
	// The log fills what is left of the screen, newest last.
	room := len(m.log) + 1
	if m.height > 0 {
		room = max(m.height-strings.Count(screen, "\n"), 3)
	}
	if len(m.log) > 0 {
		screen += m.rule("what happened") + "\n"
		for _, l := range m.log[max(len(m.log)-room+1, 0):] {
			screen += m.seats.label(l) + "\n"
		}
	}
	if m.width > 0 {
		lines := strings.Split(strings.TrimSuffix(screen, "\n"), "\n")
		for i, l := range lines {
			lines[i] = ansi.Truncate(l, m.width, "…")
		}
		screen = strings.Join(lines, "\n") + "\n"
	}
	return screen
}

func (m *model) tableText() string {
	if m.game == nil {
		return m.seats.nameSeats(longTextOf(m.view))
	}
	var focus proto.Message
	if es := m.menu.entries(m.game, &m.moves); !m.menu.hidden && m.menu.cursor < len(es) && es[m.menu.cursor].index >= 0 {
		focus = m.moves.decoded[es[m.menu.cursor].index]
	}
	return m.seats.nameSeats(m.game.render(m.view, m.seats, m.menu.scope(m.game, &m.moves), focus))
}

// seatsLine names every seat, marks the player's and the one the table waits for, with its time.
func (m *model) seatsLine() string {
	if m.seats == nil {
		return ""
	}
	turn, ok := -1, false
	if m.view != nil && m.game != nil && m.stage == stagePlaying {
		turn, ok = m.game.toAct(m.view)
	}
	var parts []string
	for i := range m.seats.names {
		p := fmt.Sprintf("%d %s", i+1, m.seats.name(i)) // people count seats from 1
		if m.seats.bots[i] {
			p += " (" + m.seats.botLabel(i) + ")"
		}
		if ok && i == turn {
			p = "▶ " + p
			if !m.deadline.IsZero() {
				p += fmt.Sprintf(" %ds", max(int(m.deadline.Sub(m.now()).Round(time.Second)/time.Second), 0))
			}
			p = bold.Render(p)
		}
		parts = append(parts, p)
	}
	return "seats: " + strings.Join(parts, " · ")
}

// maxShown is the most moves listed at once; the list scrolls with the cursor.
const maxShown = 12

func (m *model) movesText() string {
	es := m.menu.entries(m.game, &m.moves)
	var b strings.Builder
	switch {
	case es == nil:
		b.WriteString(m.rule("moves") + "\n")
		b.WriteString(faint.Render("not your move · v: refresh the table · q: leave (your seat is kept)") + "\n")
		return b.String()
	case m.menu.hidden:
		b.WriteString(m.rule("moves") + "\n")
		fmt.Fprintf(&b, "%d moves for you · m: show them\n", len(es))
		return b.String()
	}
	title := "your move"
	if m.menu.group != "" {
		title = "your move: " + strings.TrimSuffix(m.groupWords(), " …")
	}
	b.WriteString(m.rule(title) + "\n")
	first := 0
	if len(es) > maxShown {
		first = min(max(m.menu.cursor-maxShown/2, 0), len(es)-maxShown)
	}
	for i := first; i < min(first+maxShown, len(es)); i++ {
		line := fmt.Sprintf("%3d) %s", i+1, es[i].words)
		if i == m.menu.cursor {
			line = chosen.Render("›" + line[1:])
		}
		b.WriteString(line + "\n")
	}
	if len(es) > maxShown {
		fmt.Fprintf(&b, faint.Render("     (%d more: ↑↓ scroll)")+"\n", len(es)-maxShown)
	}
	help := "↑↓ or a number: choose · enter: play · esc: hide · q: leave (your seat is kept)"
	if m.menu.group != "" {
		help = "↑↓ or a number: choose · enter: play · esc: back · q: leave (your seat is kept)"
	}
	if m.menu.typed != "" {
		help = "typed " + m.menu.typed + " · enter: take it · " + help
	}
	b.WriteString(faint.Render(help) + "\n")
	return b.String()
}

// groupWords are the words of the group chosen.
func (m *model) groupWords() string {
	for _, d := range m.moves.decoded {
		if d == nil || m.game == nil {
			continue
		}
		if k, w := m.game.group(d); k == m.menu.group {
			return w
		}
	}
	return m.menu.group
}

func (m *model) results() string {
	o := m.outcome
	var b strings.Builder
	if o.GetAborted() {
		b.WriteString("the table was aborted\n")
	}
	if o.GetSummary() != "" {
		b.WriteString(m.seats.nameSeats(countedFromOne(o.GetSummary())) + "\n")
	}
	for _, l := range resultLines(o, m.seats) {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// resultLines are the outcome as a table of places, names and scores.
func resultLines(o *gamev1.Outcome, seats *seating) []string {
	if len(o.GetResults()) == 0 {
		return nil
	}
	rs := append([]*gamev1.SeatResult(nil), o.GetResults()...)
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].GetRank() < rs[j-1].GetRank(); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	lines := []string{fmt.Sprintf("%-6s %-24s %6s", "place", "player", "score")}
	for _, r := range rs {
		mark := ""
		if r.GetWinner() {
			mark = "  ★ wins"
		}
		lines = append(lines, fmt.Sprintf("%-6d %-24s %6d%s", r.GetRank(), seats.name(int(r.GetSeat())), r.GetScore(), mark))
	}
	return lines
}

// Snapshot is what the screen shows, for tests and tools that drive the client.
type Snapshot struct {
	Stage  string
	Player string
	Table  string
	Seat   int // -1: not known yet, or watching
	// Moves are the menu's lines at its step (nil: none to choose); Version is their list's.
	Moves   []string
	Version uint64
	Group   string
	Acting  bool
	// Answered counts the moves sent and answered, played or refused: a driver that sees the same
	// list after an answer knows its move was refused, as a person reads the status.
	Answered int
	Status   string
	Log      []string
	Results  []string
	Screen   string // the screen without colours
}

func (m *model) snapshot() Snapshot {
	s := Snapshot{Stage: m.stage.String(), Player: m.player, Table: m.table, Seat: -1, Version: m.moves.version,
		Group: m.menu.group, Acting: m.acting, Answered: m.answered, Status: m.status,
		Screen: ansi.Strip(m.screen())}
	if m.seats != nil {
		s.Seat = m.seats.you
	}
	for _, l := range m.log {
		s.Log = append(s.Log, m.seats.label(l))
	}
	if !m.menu.hidden {
		for _, e := range m.menu.entries(m.game, &m.moves) {
			s.Moves = append(s.Moves, e.words)
		}
	}
	if m.outcome != nil {
		s.Results = resultLines(m.outcome, m.seats)
	}
	return s
}
