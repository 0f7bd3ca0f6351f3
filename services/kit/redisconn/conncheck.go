package redisconn

import (
	"context"
	"net"

	"github.com/redis/go-redis/v9"
)

// SkipConnCheck makes c hand its connections to go-redis's pool without their file descriptor,
// so that the pool no longer checks a connection before every command it sends on it.
//
// go-redis's check (its pool's connCheck) resets the connection's deadline and peeks at the
// socket with a recvfrom system call on every command, to find connections the server closed
// while they sat in the pool: about 3 µs of CPU per command, on the action path's commit. It
// applies only to connections that expose a file descriptor (syscall.Conn): go-redis already
// skips it for TLS connections (rediss://, what production uses), which do not. With this, plain
// connections are treated as TLS ones always were: a connection that died while idle (a Redis
// restart, a server-side idle timeout) is found dead by the first command sent on it, which
// fails with a connection error, is dropped from the pool, and is sent again on another
// connection (go-redis's retries, or the services' ride-out hook). Every script the services
// send may be repeated safely: commits compare and set the version and remember action ids.
func SkipConnCheck(c redis.UniversalClient) {
	if cc, ok := c.(*redis.ClusterClient); ok {
		// A cluster client's own hooks do not dial: each node's client does.
		cc.OnNewNode(func(n *redis.Client) { n.AddHook(opaqueDial{}) })
		return
	}
	c.AddHook(opaqueDial{})
}

// opaqueDial is a client hook that wraps every connection its client dials in an opaqueConn.
type opaqueDial struct{}

func (opaqueDial) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return opaqueConn{conn}, nil
	}
}

func (opaqueDial) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (opaqueDial) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// opaqueConn is a net.Conn and nothing else: neither syscall.Conn nor NetConn, which go-redis
// would use to reach the socket.
type opaqueConn struct{ net.Conn }
