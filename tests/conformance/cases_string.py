"""Case generators of the string ops (inputs and outputs are bytes: 'S'
arrays in the data files, tfg string literals of \\xNN escapes in the replay
script). Imported by cases.py."""
import numpy as np

from cases import FLOATS, INTS, Case, edges, register, tf

WORDS = np.array([[b"ab", b"", b"x y"], [b"\xc3\xa9t\xc3\xa9", b"q\x00r", b"long word here"]])


@register("as_string")
def as_string(name):
    f = tf().strings.as_string
    for dt in FLOATS + INTS + ["bool", "string"]:
        x = WORDS if dt == "string" else edges(dt) if dt != "bool" else np.array([True, False])
        if dt in FLOATS:
            x = np.concatenate([x, np.array([1234.5678, 1e-5, -2e10], dt)])
        yield Case(f"{dt} default", "as_string($0)", [x], lambda x: f(x))
        if dt in FLOATS:
            for kw, call in (({"precision": 2}, "precision=2"), ({"scientific": True}, "scientific=true"),
                             ({"shortest": True}, "shortest=true"),
                             ({"precision": 3, "scientific": True}, "precision=3, scientific=true"),
                             ({"width": 12, "fill": "0"}, 'width=12, fill="0"'),
                             ({"width": 12, "fill": "-"}, 'width=12, fill="-"')):
                yield Case(f"{dt} {call}", f"as_string($0, {call})", [x], lambda x, kw=kw: f(x, **kw))
        if dt in INTS:
            for kw, call in (({"width": 6}, "width=6"), ({"width": 6, "fill": "0"}, 'width=6, fill="0"')):
                yield Case(f"{dt} {call}", f"as_string($0, {call})", [x], lambda x, kw=kw: f(x, **kw))
    yield Case("float32 empty", "as_string($0)", [np.zeros([0, 2], "float32")], lambda x: f(x))


@register("string_join")
def string_join(name):
    f = tf().strings.join
    a, b = WORDS, np.array([[b"1", b"2", b"3"], [b"4", b"", b"6"]])
    for sep in ("", "-", ", "):
        yield Case(f"separator {sep!r}", f'string_join([$0, $1], separator="{sep}")', [a, b],
                   lambda a, b, s=sep: f([a, b], separator=s))
    yield Case("scalar and matrix", 'string_join([$0, $1, $0], separator="/")', [np.array(b"pre"), a],
               lambda p, a: f([p, a, p], separator="/"))
    yield Case("one input", "string_join([$0])", [a], lambda a: f([a]))
    yield Case("scalars", 'string_join([$0, $1], separator=" ")', [np.array(b"a"), np.array(b"b")],
               lambda a, b: f([a, b], separator=" "))
    yield Case("empty", "string_join([$0, $1])", [np.zeros([0, 2], "S1"), np.zeros([0, 2], "S1")],
               lambda a, b: f([a, b]))


def dense_split(x, delimiter, skip_empty):
    """TensorFlow 1's string_split as tfg returns it: dense, padded with ""."""
    t = tf()
    sp = t.compat.v1.string_split(t.reshape(x, [-1]), delimiter=delimiter, skip_empty=skip_empty)
    d = t.sparse.to_dense(sp, default_value=b"")
    return d[0] if x.shape.rank == 0 else d


@register("string_split")
def string_split(name):
    lines = np.array([b"a b  c", b"", b"one", b" lead and trail ", b"x,y;z"])
    for delim in (" ", ",;", ""):
        for skip in (True, False):
            yield Case(f"delimiter {delim!r} skip_empty {skip}",
                       f'string_split($0, delimiter="{delim}", skip_empty={str(skip).lower()})', [lines],
                       lambda x, d=delim, s=skip: dense_split(x, d, s))
    yield Case("scalar", "string_split($0)", [np.array(b"the quick  fox")], lambda x: dense_split(x, " ", True))
    yield Case("all empty", "string_split($0)", [np.array([b"", b" "])], lambda x: dense_split(x, " ", True))


@register("string_to_number")
def string_to_number(name):
    f = tf().strings.to_number
    floats = np.array([b"1.5", b"-2", b"1e3", b".5", b"inf", b"-inf", b"nan", b"  7.25", b"3.4e38", b"1e-3",
                       b"0x1p3", b"+4"])
    ints = np.array([b"0", b"-17", b"+42", b"2147483647", b"-2147483648", b" 12"])
    for dt in ["float32", "float64"] + INTS:  # TensorFlow has no f16 out_type
        x = floats if dt in FLOATS else ints
        tdt = dt.replace("float", "f").replace("int", "i")
        yield Case(f"{dt}", f"string_to_number($0, out_type={tdt})", [x], lambda x, d=dt: f(x, out_type=d),
                   zero_sign=True)
    yield Case("int64 large", "string_to_number($0, out_type=i64)",
               [np.array([b"9223372036854775807", b"-9223372036854775808"])], lambda x: f(x, out_type="int64"))
    yield Case("empty", "string_to_number($0)", [np.zeros([0], "S1")], lambda x: f(x))


@register("substr")
def substr(name):
    f = tf().strings.substr
    x = np.array([b"hello", b"ab", b"", b"\xc3\xa9t\xc3\xa9"])
    for it in INTS:
        for pos, ln in ((0, 2), (1, 10), (-2, 1), (2, -1), (0, 0), (-2, 5), (2, 3)):
            ok = np.array([pos, ln])
            # pos must be within [-len, len] of every string: the empty one only takes 0
            xs = x if pos == 0 else x[[0, 1, 3]]
            yield Case(f"{it} pos {pos} len {ln}", "substr($0, #1, #2)",
                       [xs, np.array(ok[0], it), np.array(ok[1], it)], lambda s, p, n: f(s, p, n, unit="BYTE"))
        yield Case(f"{it} per element", "substr($0, #1, #2)",
                   [x, np.array([1, -2, 0, 3], it), np.array([3, 5, 1, -1], it)],
                   lambda s, p, n: f(s, p, n, unit="BYTE"))


CSV = np.array([b'1,2.5,abc', b'-7,,"x,y"', b'42,1e3,', b'0,-0.5,"say ""hi"""'])


@register("decode_csv_column")
def decode_csv_column(name):
    """One column of tf.io.decode_csv (the other columns default to strings,
    which always parse)."""
    def column_of(c, default):
        def run(records, d):
            defaults = [[b""]] * 3
            defaults[c] = d
            return tf().io.decode_csv(records, record_defaults=defaults)[c]
        return run
    for dt, col, default in (("int32", 0, [5]), ("int64", 0, []), ("float32", 1, [9.5]), ("float64", 1, [-1.0]),
                             ("string", 2, [b"none"])):
        d = np.array(default, dt if dt != "string" else bytes)
        records = CSV if default or col != 1 else CSV[[0, 2, 3]]
        yield Case(f"{dt} column {col} default {default}", f"decode_csv_column($0, #1, column={col}, num_columns=3)",
                   [records, d], column_of(col, d))
    semi = np.array([b"1;2;3", b"4;5;6"])
    yield Case("field_delim ;", 'decode_csv_column($0, #1, column=2, num_columns=3, field_delim=";")',
               [semi, np.array([0], "int32")],
               lambda r, d: tf().io.decode_csv(r, record_defaults=[[b""], [b""], d], field_delim=";")[2])
    yield Case("use_quote_delim false", "decode_csv_column($0, #1, column=0, num_columns=2, use_quote_delim=false)",
               [np.array([b'"a,b', b'c,d']), np.array([b""])],
               lambda r, d: tf().io.decode_csv(r, record_defaults=[d, [b""]], use_quote_delim=False)[0])
