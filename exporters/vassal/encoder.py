"""VASSAL's SequenceEncoder/Decoder and the piece-definition text built with it.

Every piece definition this exporter writes (PieceSlot and PrototypeDefinition text) goes through
`piece_definition`, and the tests decode every one back with `decode_piece` - a transcription of
VASSAL's own decoder, not a mirror of our encoder - so the two cannot drift apart.

Source: `VASSAL/tools/SequenceEncoder.java` (3.7 branch), notes/vassal-format.md §8.1-8.4:

* tokens are joined by the delimiter; a delimiter inside a token is written with one backslash
  before it, nothing else is escaped;
* a token that starts with a backslash, or starts and ends with a single quote, is wrapped in
  single quotes;
* decoding splits at every delimiter not preceded by a backslash (one backslash is dropped before
  an escaped delimiter), then strips one pair of enclosing single quotes;
* consequence: a token ending in a backslash followed by the delimiter would read as an escaped
  delimiter, so `clean_text` removes trailing backslashes from free text first.

A piece is a chain of traits (Decorators) around a BasicPiece. Its type and state are each nested
TAB-encodings: `outer TAB escape(inner...)`, so the TAB between trait k and k+1 carries k
backslashes. The AddPiece command is `+/` + SequenceEncoder('/'){id, TYPE, STATE}
(`VASSAL/build/module/BasicCommandEncoder.java`, `VASSAL/counters/Decorator.java`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

TAB = "\t"

# Java modifier masks as KeyStroke.getModifiers() reports them (old + new masks, note §8.4).
CTRL = 130
SHIFT = 65
ALT = 520
CTRL_SHIFT = 195


class SequenceEncoder:
    """`VASSAL.tools.SequenceEncoder`: append tokens, read `value` (None when nothing appended)."""

    def __init__(self, delimiter: str) -> None:
        if len(delimiter) != 1:
            raise ValueError("the delimiter is one character")
        self.delimiter = delimiter
        self._buffer: list[str] | None = None

    def append(self, token: object) -> "SequenceEncoder":
        if self._buffer is None:
            self._buffer = []
        else:
            self._buffer.append(self.delimiter)
        s = _to_text(token)
        if not s:
            return self
        escaped = s.replace(self.delimiter, "\\" + self.delimiter)
        if s[0] == "\\" or (s[0] == "'" and s[-1] == "'"):
            escaped = "'" + escaped + "'"
        self._buffer.append(escaped)
        return self

    def extend(self, tokens: Iterable[object]) -> "SequenceEncoder":
        for t in tokens:
            self.append(t)
        return self

    @property
    def value(self) -> str | None:
        return "".join(self._buffer) if self._buffer is not None else None


def _to_text(token: object) -> str:
    if token is None:
        return ""
    if isinstance(token, bool):  # Java String.valueOf(boolean)
        return "true" if token else "false"
    if isinstance(token, float):
        return repr(token)  # 1.0, like Java's Double.toString for ordinary values
    return str(token)


def encode(tokens: Sequence[object], delimiter: str) -> str:
    """Encode a list of tokens (an empty list encodes as the empty string)."""
    return SequenceEncoder(delimiter).extend(tokens).value or ""


class Decoder:
    """`VASSAL.tools.SequenceEncoder.Decoder` (3.7): `next_token()` raises IndexError where Java
    throws NoSuchElementException; `next_token(default)` returns the default instead."""

    _NO_DEFAULT = object()

    def __init__(self, value: str | None, delimiter: str) -> None:
        self.val = value
        self.delimiter = delimiter
        self.start = 0
        self.stop = len(value) if value is not None else 0

    def has_more(self) -> bool:
        return self.val is not None

    def next_token(self, default: object = _NO_DEFAULT) -> str:
        if self.val is None:
            if default is Decoder._NO_DEFAULT:
                raise IndexError("no more tokens")
            return default  # type: ignore[return-value]
        if self.start == self.stop:  # the token after a trailing delimiter is ""
            self.val = None
            return ""
        val, d = self.val, self.delimiter
        buf = ""
        tok: str | None = None
        i = self.start
        while i < self.stop:
            if val[i] == d:
                if i > 0 and val[i - 1] == "\\":  # escaped: drop the backslash, keep going
                    buf += val[self.start:i - 1]
                    self.start = i
                else:  # a real delimiter ends the token
                    if not buf:
                        tok = val[self.start:i]
                    else:
                        buf += val[self.start:i]
                    self.start = i + 1
                    break
            i += 1
        if self.start < i:  # reached the end without a delimiter: the rest is the last token
            if not buf:
                tok = val[self.start:]
            else:
                buf += val[self.start:self.stop]
            self.val = None
        text = tok if tok is not None else buf
        if len(text) > 1 and text[0] == "'" and text[-1] == "'":
            text = text[1:-1]
        return text

    def rest(self) -> list[str]:
        out = []
        while self.has_more():
            out.append(self.next_token())
        return out


def decode(value: str | None, delimiter: str) -> list[str]:
    """All tokens of an encoded string (None -> [])."""
    return Decoder(value, delimiter).rest()


# ---------------------------------------------------------------------------- small encodings
def clean_text(text: object) -> str:
    """Free text for a piece definition: no control characters (TAB and newline are structure in
    VASSAL's encodings) and no trailing backslash (it would escape the following delimiter)."""
    s = "".join(" " if ord(ch) < 32 else ch for ch in str(text)).strip()
    while s.endswith("\\"):
        s = s[:-1].rstrip()
    return s


def keystroke(key_code: int | None, modifiers: int = 0, name: str | None = None) -> str:
    """A NamedKeyStroke: `keyCode,modifiers[,name]`; empty = none (note §8.4)."""
    if key_code is None and not name:
        return ""
    out = f"{key_code or 0},{modifiers}"
    return f"{out},{name}" if name else out


def key_list(strokes: Sequence[str]) -> str:
    """A keystroke list (ReportState keys): each keystroke is one `,`-encoded token."""
    return encode(list(strokes), ",")


def string_array(items: Sequence[str]) -> str:
    """`StringArrayConfigurer.arrayToString`: a `,`-SequenceEncoded list."""
    return encode(list(items), ",")


def parse_string_array(text: str) -> list[str]:
    return decode(text, ",") if text else []


# ---------------------------------------------------------------------------- traits and pieces
@dataclass(frozen=True)
class Trait:
    """One level of a piece: its TYPE (starting with the trait's prefix, e.g. `emb2;`) and STATE."""

    type: str
    state: str = ""

    @property
    def prefix(self) -> str:
        """The text up to and including the first `;` (BasicCommandEncoder.typePrefix); traits
        without fields (`stack`) have no semicolon."""
        i = self.type.find(";")
        return self.type[: i + 1] if i >= 0 else self.type


def trait(prefix: str, fields: Sequence[object], state: str = "") -> Trait:
    """`prefix` is the trait ID including its `;` (`emb2;`, `mark;`...); the fields are
    `;`-SequenceEncoded after it, as every Decorator's myGetType does."""
    if not prefix.endswith(";"):
        raise ValueError(f"trait prefix {prefix!r} must end with ';'")
    return Trait(prefix + encode(list(fields), ";"), state)


def basic_piece(image: str = "", name: str = "", gpid: int | str = "") -> Trait:
    """BasicPiece: TYPE `piece;cloneKey;deleteKey;image;name` (all four fields), STATE
    `mapId;x;y;gpid;nProps` with `null;0;0;gpid;0` for a palette piece (note §8.5)."""
    return Trait("piece;" + encode(["", "", image, clean_text(name)], ";"),
                 encode(["null", 0, 0, gpid, 0], ";"))


def nest(parts: Sequence[str]) -> str:
    """Decorator nesting: parts[0] TAB escape(nest(parts[1:])) (Decorator.getType/getState)."""
    if not parts:
        raise ValueError("a piece has at least its BasicPiece")
    out = parts[-1]
    for outer in reversed(parts[:-1]):
        out = SequenceEncoder(TAB).append(outer).append(out).value or ""
    return out


def piece_definition(traits: Sequence[Trait], piece_id: str = "null") -> str:
    """The AddPiece text of a piece: outermost trait first, the BasicPiece last."""
    if not traits or not traits[-1].type.startswith("piece;"):
        raise ValueError("the innermost trait of a piece must be a BasicPiece (piece;...)")
    type_text = nest([t.type for t in traits])
    state_text = nest([t.state for t in traits])
    return "+/" + encode([piece_id, type_text, state_text], "/")


@dataclass(frozen=True)
class DecodedPiece:
    piece_id: str
    traits: tuple[Trait, ...]


def decode_piece(text: str) -> DecodedPiece:
    """Decode AddPiece text back into traits (raises ValueError on malformed text).

    The type chain is split exactly like BasicCommandEncoder: one level per TAB token until the
    BasicPiece (`piece;`); the state must then have one part per level, as `Decorator.setState`
    requires (a missing part is the IllegalStateException of note §1)."""
    if not text.startswith("+/"):
        raise ValueError("a piece definition starts with '+/'")
    d = Decoder(text[2:], "/")
    try:
        piece_id, type_text, state_text = d.next_token(), d.next_token(), d.next_token()
    except IndexError:
        raise ValueError("a piece definition needs an id, a type and a state") from None
    if d.has_more():
        raise ValueError("extra '/' tokens after the state (an unescaped '/')")
    types: list[str] = []
    rest: str | None = type_text
    while rest is not None:
        td = Decoder(rest, TAB)
        this = td.next_token()
        types.append(this)
        rest = td.next_token(None)
        if this.startswith("piece;"):
            if rest:
                raise ValueError("text after the BasicPiece would be dropped by VASSAL")
            break
    else:
        raise ValueError("no BasicPiece (piece;) at the end of the type")
    states: list[str] = []
    rest = state_text
    for _ in types:
        if rest is None:
            raise ValueError("the state has fewer parts than the piece has traits")
        sd = Decoder(rest, TAB)
        states.append(sd.next_token())
        rest = sd.next_token(None)
    if rest:
        raise ValueError("the state has more parts than the piece has traits")
    return DecodedPiece(piece_id, tuple(Trait(t, s) for t, s in zip(types, states)))


def trait_fields(t: Trait) -> list[str]:
    """The `;`-decoded fields of a trait type after its prefix."""
    prefix = t.prefix
    return decode(t.type[len(prefix):], ";") if prefix.endswith(";") else []
