package accounts

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// FoldName is the form under which display names are compared for uniqueness: case and
// surrounding space do not make two names different.
func FoldName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// Visibility is what others see of a player's profile, the number of a
// cardroom.gateway.v1.ProfileVisibility (0: the default, public).
type Visibility int

// ClaimName reserves the display name (folded) for player: ErrExists when another player holds
// it; nil when player holds it already.
func (m *Memory) ClaimName(_ context.Context, name, player string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.names == nil {
		m.names = map[string]string{}
	}
	k := FoldName(name)
	if p, ok := m.names[k]; ok && p != player {
		return ErrExists
	}
	m.names[k] = player
	return nil
}

// ReleaseName gives the name up if player holds it.
func (m *Memory) ReleaseName(_ context.Context, name, player string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := FoldName(name)
	if m.names[k] == player {
		delete(m.names, k)
	}
	return nil
}

// SetVisibility records player's profile visibility (any player, guests included).
func (m *Memory) SetVisibility(_ context.Context, player string, v Visibility) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.vis == nil {
		m.vis = map[string]Visibility{}
	}
	m.vis[player] = v
	return nil
}

// Visibilities are the profile visibilities of players, in order (0 for one never set).
func (m *Memory) Visibilities(_ context.Context, players []string) ([]Visibility, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Visibility, len(players))
	for i, p := range players {
		out[i] = m.vis[p]
	}
	return out, nil
}

func (r *Redis) nameKey(name string) string { return r.prefix + "n:" + FoldName(name) }
func (r *Redis) visKey() string             { return r.prefix + "vis" }

var claimNameScript = redis.NewScript(`
local p = redis.call('GET', KEYS[1])
if p and p ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`)

var releaseNameScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`)

func (r *Redis) ClaimName(ctx context.Context, name, player string) error {
	n, err := claimNameScript.Run(ctx, r.rdb, []string{r.nameKey(name)}, player).Int()
	if err != nil {
		return fmt.Errorf("claim name: %w", err)
	}
	if n == 0 {
		return ErrExists
	}
	return nil
}

func (r *Redis) ReleaseName(ctx context.Context, name, player string) error {
	if err := releaseNameScript.Run(ctx, r.rdb, []string{r.nameKey(name)}, player).Err(); err != nil {
		return fmt.Errorf("release name: %w", err)
	}
	return nil
}

func (r *Redis) SetVisibility(ctx context.Context, player string, v Visibility) error {
	if err := r.rdb.HSet(ctx, r.visKey(), player, int(v)).Err(); err != nil {
		return fmt.Errorf("set visibility: %w", err)
	}
	return nil
}

func (r *Redis) Visibilities(ctx context.Context, players []string) ([]Visibility, error) {
	out := make([]Visibility, len(players))
	if len(players) == 0 {
		return out, nil
	}
	res, err := r.rdb.HMGet(ctx, r.visKey(), players...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("visibilities: %w", err)
	}
	for i, v := range res {
		if s, ok := v.(string); ok {
			n, _ := strconv.Atoi(s)
			out[i] = Visibility(n)
		}
	}
	return out, nil
}
