"""Decks, hands and card uses: what card-driven games need from the engine.

Every card of a deck is in exactly one place at any moment between two actions:

    draw       the deck's draw pile (its order is hidden from every side)
    discard    the played-cards pile, top card last
    removed    out of the game ("remove from play")
    set_aside  not in the game yet: cards that start outside the deck until an effect adds them
               (No Retreat!'s green-45 cards, Twilight Struggle's Mid/Late War cards, Paths of
               Glory's Limited/Total War cards); a card with the flag `set_aside` starts here
    play       a card being played, while its event resolves (so an opponent may cancel it)
    hand       a side's hand (`GameState.hands`)

A card is *used* in one of two ways, each recorded for the current player turn (the game turn
and the active side): played as an event (`play`), or discarded as payment for something the
rules sell for cards (`pay`, with the purpose: rail movement, a return, a counterblow...). The
record answers "the same card may not be played twice in one player turn" (`times_played`),
"cancel the card just played" (`last_played`) and "a card just discarded for a special purpose"
(`last_paid`).

A deck may say when it is reshuffled: `reshuffle_at: N` shuffles the discard pile back into the
draw pile (the cards still in it included) as soon as N cards or fewer remain after a draw, and
before a draw from an empty pile (No Retreat!: 1, "nobody draws the last card"; Paths of Glory,
Hannibal: 0, when the draw pile runs out).

Hands are hidden information: `Engine.observation` shows another side's hand as its size only,
the draw pile as its size only to everybody, and a log entry that draws cards into a hand is
marked `hidden_from` the drawing side's enemies. Every pile has a visibility (`pile "cup"
face_down`): `face_down` piles show their size only (the draw pile, a cup of chits), `face_up` ones
everything (the others, unless declared), and in an `owner_only` pile each card is known to its
owners only (`owner:`/`side:`/`sides:`; a card that declares none is known to nobody there, and
the checker warns where the rules can put one there, `W-ownerless-card`): a chit set aside hidden
from the opponent. A log entry that puts a card into an owner_only pile, or
reads such a pile, is marked `hidden_from` the card's owners' enemies.
"""

from __future__ import annotations

from warcodex.dsl import ast
from warcodex.interpreter.values import Derivation, Entity, RuleError, show

PILES = ast.Deck.BUILTIN_PILES  # every deck's; a deck adds its own with `piles: [...]` (a cup of chits)


class Cards:
    """The card operations of one engine (one game's decks)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.deck_of: dict[str, str] = {}  # card -> deck
        self.decks: dict[str, ast.Deck] = {}
        self.pile_names: dict[str, tuple[str, ...]] = {}  # deck -> its piles, the built-in ones first
        self.visibility: dict[str, dict[str, str]] = {}  # deck -> pile -> face_down / face_up / owner_only
        for deck in engine.game.of_kind(ast.Deck):
            self.decks[deck.name] = deck
            self.pile_names[deck.name] = tuple(deck.piles())
            self.visibility[deck.name] = deck.visibility()
            for c in deck.cards:
                self.deck_of[c.name] = deck.name

    # ------------------------------------------------------------ names
    def card_name(self, card, span) -> str:
        name = card.name if isinstance(card, Entity) else card if isinstance(card, str) else None
        if name not in self.deck_of:
            raise RuleError(f"{show(card)} is not a card", span)
        return name

    def deck_name(self, deck, span) -> str:
        name = deck.name if isinstance(deck, Entity) else str(deck) if deck is not None else None
        if name not in self.decks:
            raise RuleError(f"{show(deck)} is not a deck", span)
        return name

    def prop(self, deck: str, key: str, default=None):
        ent = self.engine.entities[deck]
        return ent.props.get(key, default)

    # ------------------------------------------------------------ piles
    def start_pile(self, card: str) -> str:
        """Where a card starts: the pile its `pile:` names, set aside with the flag `set_aside`,
        else the draw pile."""
        props = self.engine.entities[card].props
        return props.get("pile") or ("set_aside" if props.get("set_aside") else "draw")

    def piles(self, state, deck: str) -> dict[str, list[str]]:
        """The deck's piles, created on first use: the cards shuffled into the draw pile with the
        state's RNG, the others in the pile they start in (`pile:`, `set_aside`), in order."""
        piles = state.decks.get(deck)
        if piles is None:
            piles = {p: [] for p in self.pile_names[deck]}
            for c in self.decks[deck].cards:
                start = self.start_pile(c.name)
                if start != "draw":
                    piles[start].append(c.name)
            cards = [c.name for c in self.decks[deck].cards if self.start_pile(c.name) == "draw"]
            state.rng.shuffle(cards)
            piles["draw"] = cards
            state.decks[deck] = piles
        for p in self.pile_names[deck]:  # saves made before a pile existed
            piles.setdefault(p, [])
        return piles

    def pile(self, state, deck: str, pile: str, span) -> list[str]:
        """One pile of a deck (bottom card first)."""
        piles = self.piles(state, deck)
        if pile not in piles:
            raise RuleError(f"deck {deck} has no pile '{pile}' (it has: {', '.join(piles)})", span)
        return piles[pile]

    def move(self, ctx, card: str, to: str, span) -> None:
        """Put a card on top of one of its deck's piles, from the pile or hand it is in."""
        deck = self.deck_of[card]
        target = self.pile(ctx.state, deck, to, span)
        was = self._take_out(ctx.state, card, span)
        target.append(card)
        if self.visibility[deck].get(to) == "owner_only":
            for owner in self.owners(card):  # which card went there is the owners' secret
                ctx.saw_hidden(owner)
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{self.engine.entities[card].label}: {was.replace('hand:', 'the hand of ')} -> {to}"))
        ctx.state.touch()

    def places(self, state, card: str) -> list[str]:
        """Every place holding the card: one, unless the state is corrupt (the invariant checks)."""
        deck = self.deck_of[card]
        out = []
        piles = state.decks.get(deck)
        if piles is None:
            return [self.start_pile(card)]
        for p in self.pile_names[deck]:
            out += [p] * piles.get(p, []).count(card)
        for side, hand in state.hands.items():
            out += [f"hand:{side}"] * hand.count(card)
        return out

    def _take_out(self, state, card: str, span) -> str:
        """Remove a card from where it is; return the place it was in."""
        piles = self.piles(state, self.deck_of[card])
        for p in self.pile_names[self.deck_of[card]]:
            if card in piles[p]:
                piles[p].remove(card)
                return p
        for side, hand in state.hands.items():
            if card in hand:
                hand.remove(card)
                return f"hand:{side}"
        raise RuleError(f"card {card} is nowhere (the state is corrupt)", span)

    def holder(self, state, card: str) -> str | None:
        for side, hand in state.hands.items():
            if card in hand:
                return side
        return None

    # ------------------------------------------------------------ drawing and shuffling
    def draw(self, ctx, side: Entity, deck: str, n: int, span) -> None:
        state = ctx.state
        piles = self.piles(state, deck)
        hand = state.hands.setdefault(side.name, [])
        threshold = self.prop(deck, "reshuffle_at")
        drawn = []
        for _ in range(n):
            if not piles["draw"] and threshold is not None:
                self.reshuffle(ctx, deck, span, "the draw pile is empty")
            if not piles["draw"] or (threshold is not None and len(piles["draw"]) <= threshold):
                break  # nothing left to draw ("nobody draws the last card")
            card = piles["draw"].pop()
            hand.append(card)
            drawn.append(card)
            self._check_reshuffle(ctx, deck, span)
        ctx.saw_hidden(side.name)  # what was drawn is known to the drawing side only
        if ctx.tracing:
            names = ", ".join(self.engine.entities[c].label for c in drawn) or "nothing"
            ctx.trace_add(Derivation(f"{side.name} draws {len(drawn)} card{'s' if len(drawn) != 1 else ''}: {names}"))
        state.touch()

    def _check_reshuffle(self, ctx, deck: str, span) -> None:
        threshold = self.prop(deck, "reshuffle_at")
        piles = self.piles(ctx.state, deck)
        if threshold is not None and len(piles["draw"]) <= threshold and piles["discard"]:
            self.reshuffle(ctx, deck, span, f"{len(piles['draw'])} card{'s' if len(piles['draw']) != 1 else ''} left")

    def reshuffle(self, ctx, deck: str, span, why: str = "") -> None:
        """The discard pile and the draw pile shuffled together into a new draw pile."""
        piles = self.piles(ctx.state, deck)
        piles["draw"].extend(piles["discard"])
        piles["discard"].clear()
        ctx.state.rng.shuffle(piles["draw"])
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{deck}: the discards are shuffled into the draw pile ({len(piles['draw'])} cards)"
                                     + (f": {why}" if why else ""), None, tuple(self.decks[deck].header.citations)))
        ctx.state.touch()

    # ------------------------------------------------------------ moving cards
    def discard(self, ctx, side: Entity, card: str, span) -> None:
        hand = ctx.state.hands.get(side.name, [])
        if card not in hand:
            raise RuleError(f"{side.name} has no card {card} in hand", span)
        hand.remove(card)
        self.piles(ctx.state, self.deck_of[card])["discard"].append(card)
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{side.name} discards {self.engine.entities[card].label}"))
        ctx.state.touch()

    def take(self, ctx, side: Entity, card: str, span) -> None:
        """A card into a side's hand from wherever it is (the discard pile, another hand...)."""
        state = ctx.state
        was = self._take_out(state, card, span)
        state.hands.setdefault(side.name, []).append(card)
        if was == "draw":
            ctx.saw_hidden(side.name)
        if ctx.tracing:
            shown = "a card" if was == "draw" else self.engine.entities[card].label
            ctx.trace_add(Derivation(f"{side.name} takes {shown} from {was.replace('hand:', 'the hand of ')}"))
        state.touch()

    def remove(self, ctx, card: str, span) -> None:
        was = self._take_out(ctx.state, card, span)
        self.piles(ctx.state, self.deck_of[card])["removed"].append(card)
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{self.engine.entities[card].label} is removed from the game ({was})"))
        if was == "draw":
            self._check_reshuffle(ctx, self.deck_of[card], span)
        ctx.state.touch()

    def add_to_deck(self, ctx, card: str, span) -> None:
        self._take_out(ctx.state, card, span)
        self.piles(ctx.state, self.deck_of[card])["draw"].append(card)
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{self.engine.entities[card].label} is added to the draw pile"))
        ctx.state.touch()

    def discard_random(self, ctx, side: Entity, span) -> None:
        hand = ctx.state.hands.get(side.name, [])
        if not hand:
            if ctx.tracing:
                ctx.trace_add(Derivation(f"{side.name} has no card to discard at random"))
            return
        card = hand[ctx.state.rng.randrange(len(hand))]
        if ctx.tracing:
            ctx.trace_add(Derivation(f"a card of {side.name}'s is picked at random"))
        self.discard(ctx, side, card, span)

    # ------------------------------------------------------------ uses
    def _key(self, state) -> list:
        return [state.position.turn, state.active]

    def _record(self, state, card: str, side: str, use: str, purpose=None) -> None:
        key = self._key(state)
        uses = [u for u in state.card_uses if u["key"] == key]  # only the current player turn's
        uses.append({"key": key, "card": card, "side": side, "use": use, "purpose": purpose})
        state.card_uses = uses

    def uses(self, state) -> list[dict]:
        key = self._key(state)
        return [u for u in state.card_uses if u["key"] == key]

    def play(self, ctx, side: Entity, card: str, span) -> None:
        """Play a card from a side's hand as an event: it is announced (`card_announced`, when an
        opponent may cancel it), resolved (`card_played`) unless cancelled, then discarded,
        unless its own event moved it elsewhere (a card passed to the opponent)."""
        state = ctx.state
        hand = state.hands.get(side.name, [])
        if card not in hand:
            raise RuleError(f"{side.name} has no card {card} in hand to play", span)
        hand.remove(card)
        piles = self.piles(state, self.deck_of[card])
        piles["play"].append(card)
        self._record(state, card, side.name, "event")
        state.touch()
        ent = self.engine.entities[card]
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{side.name} plays {ent.label} as an event", None, tuple(ent.citations)))
        self.engine.fire(ctx, "card_announced", (ent, side))
        if card in piles["play"] and not self._cancelled(state, card):
            self.engine.fire(ctx, "card_played", (ent, side))
        if card in piles["play"]:
            piles["play"].remove(card)
            piles["discard"].append(card)
            state.touch()

    def _cancelled(self, state, card: str) -> bool:
        return any(u["card"] == card and u["use"] == "cancelled" for u in self.uses(state))

    def cancel(self, ctx, card: str, span) -> None:
        """Cancel a card being played: its event does not happen (the card still counts as played)."""
        state = ctx.state
        if card not in self.piles(state, self.deck_of[card])["play"]:
            raise RuleError(f"{self.engine.entities[card].label} is not being played: only a card in play can be cancelled", span)
        self._record(state, card, None, "cancelled")
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{self.engine.entities[card].label} is cancelled"))
        state.touch()

    def pay(self, ctx, side: Entity, card: str, purpose, span) -> None:
        """Discard a card from a side's hand as payment for `purpose` (fires `card_paid`)."""
        state = ctx.state
        hand = state.hands.get(side.name, [])
        if card not in hand:
            raise RuleError(f"{side.name} has no card {card} in hand to pay with", span)
        hand.remove(card)
        self.piles(state, self.deck_of[card])["discard"].append(card)
        label = purpose.name if isinstance(purpose, Entity) else str(purpose)
        self._record(state, card, side.name, "payment", label)
        state.touch()
        ent = self.engine.entities[card]
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{side.name} discards {ent.label} to pay for {label}"))
        self.engine.fire(ctx, "card_paid", (ent, side, label))

    def times_played(self, state, card: str) -> int:
        return sum(1 for u in self.uses(state) if u["card"] == card and u["use"] == "event")

    def last_use(self, state, deck: str, use: str) -> str | None:
        for u in reversed(self.uses(state)):
            if u["use"] == use and self.deck_of.get(u["card"]) == deck:
                return u["card"]
        return None

    # ------------------------------------------------------------ hidden information
    def owners(self, card: str) -> tuple[str, ...]:
        """The sides a card declares as its owners (`owner:`, `side:`, `sides:`): those who may see
        it in an owner_only pile."""
        props = self.engine.entities[card].props
        out: list[str] = []
        for key in ("owner", "side", "sides"):
            value = props.get(key)
            for v in value if isinstance(value, (list, tuple)) else [value]:
                name = v.name if isinstance(v, Entity) else v if isinstance(v, str) else None
                if name is not None and name not in out:
                    out.append(name)
        return tuple(out)

    def visible_to(self, state, card: str, side: str) -> bool:
        """Whether `side` may see which card this is, where it is now: in a hand, the holder; in
        a pile, as the pile's visibility says."""
        place = self.places(state, card)[0]
        if place.startswith("hand:"):
            return place[5:] == side
        seen = self.visibility[self.deck_of[card]].get(place, "face_up")
        return seen == "face_up" or (seen == "owner_only" and side in self.owners(card))

    def read_pile(self, ctx, deck: str, pile: str, span) -> list[str]:
        """A pile as the rules read it: an owner_only pile's owners see what is read."""
        cards = self.pile(ctx.state, deck, pile, span)
        if self.visibility[deck].get(pile) == "owner_only":
            for card in cards:
                for owner in self.owners(card):
                    ctx.saw_hidden(owner)
        return cards

    def observe(self, data: dict, side: str) -> None:
        """Hide, in a state's data, what `side` may not see: other hands (their size is public),
        every face-down pile (its size is public: the draw pile, a cup) and, in an owner_only
        pile, the cards `side` does not own (each shown as "hidden", in its place)."""
        for s, hand in data.get("hands", {}).items():
            if s != side:
                data["hands"][s] = ["hidden"] * len(hand)
        for deck, piles in data.get("decks", {}).items():
            seen = self.visibility.get(deck, {})
            for name, cards in piles.items():
                kind = seen.get(name, "face_down" if name == "draw" else "face_up")
                if kind == "face_down":
                    piles[name] = ["hidden"] * len(cards)
                elif kind == "owner_only":
                    piles[name] = [c if side in self.owners(c) else "hidden" for c in cards]
