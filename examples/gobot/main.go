// Command gobot sits at a cardroom table and plays any game to its end by its labelled choices.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"os/signal"

	"cardroom.dev/client"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7070", "the cardroom's address")
	game := flag.String("game", "sapotagem", "the game to queue for (bots fill the table after the wait)")
	join := flag.String("join", "", "an invite code: take a place at that private table instead")
	name := flag.String("name", "gobot", "the bot's name; its credential is kept in NAME.credential.json")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *addr, *game, *join, *name, os.Stdout); err != nil {
		log.Fatalf("gobot: %v", err)
	}
}

func run(ctx context.Context, addr, game, join, name string, out io.Writer) error {
	c, err := client.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	var t *client.Table
	if _, err = c.SignInDevice(ctx, client.FileCredentials(name+".credential.json"), name); err == nil && join != "" {
		t, err = c.JoinTable(ctx, join)
	} else if err == nil {
		t, err = c.Queue(ctx, client.Ticket{Game: game, BotsMayFill: true})
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "at table", t.ID())
	for u, err := range t.Watch(ctx) {
		if err != nil {
			return err
		}
		for _, e := range u.Events {
			fmt.Fprintln(out, e.GetLabel())
		}
		if u.Choices != nil && u.Choices.Len() > 0 {
			if _, err := t.Choose(ctx, *u.Choices, rand.IntN(u.Choices.Len())); err != nil && !client.IsStale(err) {
				fmt.Fprintln(out, "refused:", err) // the stream brings what comes next
			}
		}
	}
	return nil
}
