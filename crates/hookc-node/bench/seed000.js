/**
 * Seed 000's Python evaluator, as crates/hookc-python/bench/bench_eval.py runs
 * it, ported to plain JavaScript: the baseline the Node benchmark (bench.js)
 * compares hookc with, and what test/seed_port.test.js checks against the
 * `hookc` command.
 *
 * It is a line-for-line port of `evaluate_hooks`, `matches_condition`,
 * `resolve_path` and `apply_operator` there, and keeps that bench's two
 * deviations from the seed's listing: a plain function rather than a
 * coroutine, and an operator that raises a Python TypeError (`None > 0.8` on a
 * missing path) counts as no match. Any other Python exception (KeyError for a
 * missing `path`/`op` or an unknown operator, re.error for a bad pattern) is
 * not caught there, so it is thrown here too.
 *
 * Values are JSON values as JSON.parse makes them (null, booleans, numbers,
 * strings, arrays, plain objects); an object that is not an array is a dict.
 * Where JavaScript's own operators mean something else, Python's semantics are
 * reproduced:
 * - `eq`/`ne` and `in` on a list are Python `==`: numbers and booleans compare
 *   by value (True == 1 == 1.0), lists and dicts deeply, other kinds never
 *   equal ('a' != ['a'], None == None).
 * - `gt`/`gte`/`lt`/`lte` order numbers and booleans by value, strings by code
 *   point and lists lexicographically; anything else (str vs number, None,
 *   dicts) is a TypeError, so no match.
 * - `in` is membership in a list, substring in a string (a TypeError unless
 *   the left side is a string), key membership in a dict (a TypeError for a
 *   list or dict on the left); against anything else a TypeError.
 * - `contains`, `starts_with`, `ends_with` and `regex` take `str(actual)`, and
 *   are a TypeError unless the expected value is a string.
 * - The hooks are sorted on every call by `priority` (0 when absent),
 *   descending and stable, as `sorted(..., reverse=True)` keeps hooks of equal
 *   priority in their given order; priorities compare as Python `<` does.
 *
 * Deviations and approximations, none of which the seed policy or the scale
 * policy of bench.js reach:
 * - JSON.parse has one number type, so `5` and `5.0` (and `1e3`) are the same
 *   value here; `str()` writes an integral number as a Python int ('5', where
 *   Python writes '5.0' for a float) and any other as Python's float repr.
 * - `str()` of a string inside a list or dict is Python's repr with its
 *   quoting and escapes; which characters count as printable follows the
 *   Unicode tables of this Node, not of Python. A dict's keys print in
 *   JavaScript's property order, which puts integer-like keys first where
 *   Python keeps the JSON text's order.
 * - Substring, prefix and suffix tests work on UTF-16 code units, which differ
 *   from Python's code points only for lone surrogates.
 * - `regex` compiles the pattern to a JavaScript RegExp, cached per pattern in
 *   a table of 512 (CPython's `re._MAXCACHE`) that drops its oldest entry when
 *   full, as CPython's `re` module caches compiled patterns. Python-only
 *   syntax with a JavaScript equivalent is translated (leading inline flags
 *   `(?i)` `(?m)` `(?s)` `(?a)` `(?u)`, `(?P<name>…)`, `(?P=name)`, `\A`, `\Z`,
 *   Python's `^`, `$` and `.`, a `]` first in a class); other syntax is passed
 *   through, so Python-only forms such as `(?x)` or `{,n}` fail or mean
 *   something else. Matching runs on UTF-16 code units, and `\d`, `\w`, `\b`
 *   are ASCII-only where Python's are Unicode.
 * - The operator table is built once rather than on every call as in the
 *   listing: a cost of CPython, not a semantic.
 */

'use strict';

/** A Python TypeError: the only exception an operator's no-match swallows. */
class PyTypeError extends Error {}

/** A Python KeyError: a missing required key, which the listing does not catch. */
class PyKeyError extends Error {}

/** `obj[key]` as Python's subscript: a KeyError when the key is missing. */
function item(obj, key) {
  if (!Object.hasOwn(obj, key)) throw new PyKeyError(`KeyError: '${key}'`);
  return obj[key];
}

/** `isinstance(v, dict)` for JSON values. */
function isDict(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A number or a boolean: Python's bool is an int, so they compare by value. */
function isNumeric(v) {
  return typeof v === 'number' || typeof v === 'boolean';
}

/** Python `a == b` on JSON values. */
function pyEq(a, b) {
  if (a === b) return true;
  if (isNumeric(a) && isNumeric(b)) return Number(a) === Number(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!pyEq(a[i], b[i])) return false;
    return true;
  }
  if (isDict(a) && isDict(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const k of keys) if (!Object.hasOwn(b, k) || !pyEq(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/**
 * Compares strings by code point, as Python does (JavaScript's `<` compares
 * UTF-16 code units, which orders astral characters below U+E000–U+FFFF).
 * Returns <0, 0 or >0.
 */
function compareStrings(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return a.codePointAt(i) - b.codePointAt(i);
  }
  return a.length - b.length;
}

/**
 * Python's rich comparison `a OP b` for OP in < <= > >=, given as `holds`,
 * which maps a three-way result (<0, 0, >0) of comparable values to the
 * answer. A TypeError for kinds Python does not order.
 */
function pyOrder(a, b, holds, opName) {
  if (isNumeric(a) && isNumeric(b)) {
    const x = Number(a);
    const y = Number(b);
    return holds(x < y ? -1 : x > y ? 1 : 0);
  }
  if (typeof a === 'string' && typeof b === 'string') return holds(compareStrings(a, b));
  if (Array.isArray(a) && Array.isArray(b)) {
    // list_richcompare: the first position where the items differ decides,
    // with the operator itself; if none, the lengths do.
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (!pyEq(a[i], b[i])) return pyOrder(a[i], b[i], holds, opName);
    }
    return holds(a.length - b.length);
  }
  throw new PyTypeError(
    `'${opName}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`,
  );
}

/** Python's type name of a JSON value, for TypeError messages. */
function typeName(v) {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  return Array.isArray(v) ? 'list' : 'dict';
}

/** Python `str(v)` on JSON values. */
function pyStr(v) {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** Python `repr(v)` on JSON values. */
function pyRepr(v) {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? intRepr(v) : floatRepr(v);
  if (typeof v === 'string') return stringRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.keys(v).map((k) => `${stringRepr(k)}: ${pyRepr(v[k])}`).join(', ')}}`;
}

/** An integral number as Python writes an int: every digit, never an exponent. */
function intRepr(n) {
  return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
}

/**
 * A non-integral number as Python's `repr(float)`: the shortest digits that
 * round-trip (as JavaScript's), written positionally when the decimal point
 * position is above -4, else as d.ddde-XX with at least two exponent digits.
 * (A non-integral double is below 2^53, so Python's exponent form for a
 * decimal point position above 16 never applies.)
 */
function floatRepr(x) {
  const [mant, exp] = Math.abs(x).toExponential().split('e');
  const digits = mant.replace('.', '');
  const decpt = Number(exp) + 1; // |x| = 0.DIGITS × 10^decpt, decpt < digits.length
  const sign = x < 0 ? '-' : '';
  if (decpt > -4) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
  return `${sign}${digits[0]}${frac}e-${String(1 - decpt).padStart(2, '0')}`;
}

/** Characters Python's str.isprintable() rejects (the space aside). */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python `repr(s)` of a str: its quote choice and escapes. */
function stringRepr(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch !== ' ' && NON_PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0);
      const hex = cp.toString(16);
      out += cp < 0x100 ? `\\x${hex.padStart(2, '0')}`
        : cp < 0x10000 ? `\\u${hex.padStart(4, '0')}`
          : `\\U${hex.padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

/** `e` as the argument of str.__contains__/startswith/endswith/re.search. */
function needString(e, what) {
  if (typeof e !== 'string') throw new PyTypeError(`${what} requires str, not ${typeName(e)}`);
  return e;
}

/** Python `a in e`. */
function pyIn(a, e) {
  if (Array.isArray(e)) {
    for (const x of e) if (pyEq(x, a)) return true;
    return false;
  }
  if (typeof e === 'string') {
    if (typeof a !== 'string') {
      throw new PyTypeError(`'in <string>' requires string as left operand, not ${typeName(a)}`);
    }
    return e.includes(a);
  }
  if (isDict(e)) {
    if (a !== null && typeof a === 'object') throw new PyTypeError(`unhashable type: '${typeName(a)}'`);
    // A JSON object's keys are strings, and no other kind equals a string.
    return typeof a === 'string' && Object.hasOwn(e, a);
  }
  throw new PyTypeError(`argument of type '${typeName(e)}' is not iterable`);
}

/** CPython's `re` cache size (re._MAXCACHE). */
const REGEX_CACHE_SIZE = 512;
const regexCache = new Map();

/** `re.search(pattern, text) is not None`. */
function pySearch(pattern, text) {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    re = translatePattern(pattern);
    if (regexCache.size >= REGEX_CACHE_SIZE) regexCache.delete(regexCache.keys().next().value);
    regexCache.set(pattern, re);
  }
  return re.test(text);
}

/** The Python inline flags ported: i and s as the JavaScript flags, m by rewriting ^ and $. */
const INLINE_FLAGS = 'imsau';

/**
 * A Python pattern as a JavaScript RegExp: the Python-only syntax listed in
 * the module comment rewritten, everything else as written. A pattern neither
 * accepts throws (re.error in Python, SyntaxError here).
 */
function translatePattern(pattern) {
  let p = pattern;
  let pyFlags = '';
  for (let m; (m = /^\(\?([a-zA-Z]+)\)/.exec(p)); p = p.slice(m[0].length)) {
    for (const f of m[1]) {
      if (!INLINE_FLAGS.includes(f)) {
        throw new SyntaxError(`inline flag (?${f}) is not ported: ${pattern}`);
      }
      pyFlags += f;
    }
  }
  const multiline = pyFlags.includes('m');
  const dotAll = pyFlags.includes('s');
  const flags = (pyFlags.includes('i') ? 'i' : '') + (dotAll ? 's' : '');
  let out = '';
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '\\') {
      const n = p[i + 1];
      out += n === 'A' ? '(?<![\\s\\S])' : n === 'Z' ? '(?![\\s\\S])' : c + (n ?? '');
      i += 2;
    } else if (c === '[') {
      // A class is copied up to its closing `]`; Python reads a `]` right
      // after `[` or `[^` as a literal, JavaScript as the end of the class.
      let j = i + 1;
      if (p[j] === '^') j++;
      out += p.slice(i, j);
      if (p[j] === ']') {
        out += '\\]';
        j++;
      }
      while (j < p.length && p[j] !== ']') {
        const step = p[j] === '\\' ? 2 : 1;
        out += p.slice(j, j + step);
        j += step;
      }
      out += p[j] ?? '';
      i = j + 1;
    } else if (p.startsWith('(?P<', i)) {
      out += '(?<';
      i += 4;
    } else if (p.startsWith('(?P=', i)) {
      const end = p.indexOf(')', i);
      if (end < 0) throw new SyntaxError(`missing ), unterminated name: ${pattern}`);
      out += `\\k<${p.slice(i + 4, end)}>`;
      i = end + 1;
    } else if (c === '^' || c === '$') {
      // Python's anchors know only \n as a line end (JavaScript's multiline
      // ones also \r, U+2028, U+2029), and its `$` without (?m) also matches
      // just before a newline that ends the text.
      out += c === '^' ? (multiline ? '(?<![^\\n])' : '^')
        : multiline ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))';
      i++;
    } else if (c === '.' && !dotAll) {
      // Python's `.` excludes only \n; JavaScript's also \r, U+2028, U+2029.
      out += '[^\\n]';
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return new RegExp(out, flags);
}

/** seed 000's operators, each `lambda a, e` of the listing. */
const OPERATORS = {
  eq: (a, e) => pyEq(a, e),
  ne: (a, e) => !pyEq(a, e),
  gt: (a, e) => pyOrder(a, e, (c) => c > 0, '>'),
  gte: (a, e) => pyOrder(a, e, (c) => c >= 0, '>='),
  lt: (a, e) => pyOrder(a, e, (c) => c < 0, '<'),
  lte: (a, e) => pyOrder(a, e, (c) => c <= 0, '<='),
  in: (a, e) => pyIn(a, e),
  contains: (a, e) => pyStr(a).includes(needString(e, "'in <string>'")),
  starts_with: (a, e) => pyStr(a).startsWith(needString(e, 'startswith')),
  ends_with: (a, e) => pyStr(a).endsWith(needString(e, 'endswith')),
  regex: (a, e) => pySearch(needString(e, 're.search'), pyStr(a)),
  exists: (a) => a !== null,
};

/** `h.get('priority', 0)`. */
function priority(hook) {
  return Object.hasOwn(hook, 'priority') ? hook.priority : 0;
}

/** Python's `x < y` on sort keys (a TypeError, which escapes, if they do not order). */
function keyLess(x, y) {
  // Priorities are numbers in practice: compare them without pyOrder's dispatch.
  if (typeof x === 'number' && typeof y === 'number') return x < y;
  return pyOrder(x, y, (c) => c < 0, '<');
}

/** Evaluate hooks in priority order, return first matching action. */
function evaluateHooks(event, context, hooks) {
  // sorted(hooks, key=priority, reverse=True): descending, and stable, so
  // hooks of equal priority keep their order (Array.prototype.sort is stable).
  const sortedHooks = hooks
    .map((hook) => ({ hook, key: priority(hook) }))
    .sort((x, y) => (keyLess(y.key, x.key) ? -1 : keyLess(x.key, y.key) ? 1 : 0));
  for (const { hook } of sortedHooks) {
    if (!pyEq(item(hook, 'event'), event)) continue;
    if (matchesCondition(context, item(hook, 'condition'))) return item(hook, 'action');
  }
  return null;
}

/** Whether `condition` (a combinator or a path/op/value test) holds. */
function matchesCondition(context, condition) {
  if (Object.hasOwn(condition, 'all')) {
    for (const c of condition.all) if (!matchesCondition(context, c)) return false;
    return true;
  }
  if (Object.hasOwn(condition, 'any')) {
    for (const c of condition.any) if (matchesCondition(context, c)) return true;
    return false;
  }
  if (Object.hasOwn(condition, 'not')) return !matchesCondition(context, condition.not);
  const path = item(condition, 'path');
  const op = item(condition, 'op');
  const expected = Object.hasOwn(condition, 'value') ? condition.value : null;
  const actual = resolvePath(context, path);
  return applyOperator(actual, op, expected);
}

/** Not in the listing: dotted fields of nested dicts, null when missing. */
function resolvePath(context, path) {
  let cur = context;
  for (const part of path.split('.')) {
    if (isDict(cur) && Object.hasOwn(cur, part)) cur = cur[part];
    else return null;
  }
  return cur;
}

/** The operator `op` on `actual` and `expected`; a TypeError is no match. */
function applyOperator(actual, op, expected) {
  // `operators[op]` is inside the listing's try: an unhashable op (a list or
  // dict) is a TypeError, so no match; an unknown one a KeyError, which escapes.
  if (op !== null && typeof op === 'object') return false;
  const operator = item(OPERATORS, op);
  try {
    return operator(actual, expected);
  } catch (err) {
    if (err instanceof PyTypeError) return false;
    throw err;
  }
}

module.exports = { evaluateHooks, matchesCondition, resolvePath, applyOperator };
