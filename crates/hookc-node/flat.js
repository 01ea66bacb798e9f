// `decide` in JavaScript, for an event whose hooks are flat conjunctions
// (the plan of `NativePolicy.flatPlan`, from the runtime's
// `Policy::flat_plan`): an addon call and its context reads cost more than
// such a decision's whole work, so the package decides it here, exactly as
// the addon would, and calls in for everything else.
//
// A path is read as the addon reads it (src/lookup.rs): an own property of
// a plain object, an index below an array's length. Whatever the addon
// might read another way or refuse (a value that is not a string, a
// number JavaScript holds exactly, a boolean or null at a leaf; a
// non-plain object on the way; a string with surrogates; a read that
// throws) gives BAIL, and the caller asks the addon, which reads it as it
// always does (a getter may then run twice). The test
// `flat.test.js` compares this with the addon on random policies and
// contexts.
'use strict';

/** "Ask the addon": this code does not decide the call. */
const BAIL = Symbol('bail');

/** Absent: a path that does not resolve (its leaf is not `true`). */
const MISSING = Symbol('missing');

const EXACT = 2 ** 53;
const hasOwn = Object.prototype.hasOwnProperty;

function plainObject(v) {
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof v.toJSON !== 'function';
}

function wellFormed(s) {
  return typeof s.isWellFormed === 'function' ? s.isWellFormed() : !/[\uD800-\uDFFF]/.test(s);
}

/** The scalar at `path` ([root, key or index, ...]), MISSING, or BAIL. */
function read(context, path) {
  let v = context;
  for (let i = 0; i < path.length; i++) {
    const step = path[i];
    if (typeof v !== 'object' || v === null) return MISSING;
    if (Array.isArray(v)) {
      if (typeof step !== 'number') return MISSING;
      if (step >= v.length) return MISSING;
      v = v[step];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return BAIL;
    } else {
      if (!plainObject(v)) return BAIL;
      if (typeof step !== 'string' || !hasOwn.call(v, step)) return MISSING;
      v = v[step];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return BAIL;
    }
  }
  switch (typeof v) {
    case 'string':
      return wellFormed(v) ? v : BAIL;
    case 'number':
      return Number.isFinite(v) && Math.abs(v) < EXACT ? v : BAIL;
    case 'boolean':
      return v;
    default:
      // null reads as null; an object or array is read whole by the addon,
      // which may refuse what is inside.
      return v === null ? null : BAIL;
  }
}

/** `a == b` for a scalar read and a scalar constant. */
function equals(a, b) {
  return typeof a === typeof b && a === b;
}

/** Most hooks, and distinct paths, a plan decided here may have: beyond,
 * the addon's hook index beats reading every path in JavaScript. */
const MAX_HOOKS = 32;
const MAX_PATHS = 64;

/**
 * A plan made ready to run: each distinct path once, each leaf naming its
 * path's position; null when the plan is too big to be worth it.
 */
function prepare(hooks) {
  if (!Array.isArray(hooks) || hooks.length > MAX_HOOKS) return null;
  const paths = [];
  const position = new Map();
  const ready = hooks.map((hook) => ({
    id: hook.id,
    decides: hook.decides,
    leaves: hook.leaves.map((leaf) => {
      const key = JSON.stringify(leaf[1]);
      let at = position.get(key);
      if (at === undefined) {
        at = paths.length;
        position.set(key, at);
        paths.push(leaf[1]);
      }
      return { kind: leaf[0], at, op: leaf[0] === 'cmp' ? leaf[2] : null, value: leaf[leaf.length - 1] };
    }),
  }));
  return paths.length > MAX_PATHS ? null : { hooks: ready, paths };
}

/** Whether one leaf is `true`, given the value read at its path. */
function leafHolds(leaf, v) {
  if (v === MISSING) return false;
  switch (leaf.kind) {
    case 'has':
      return true;
    case 'in':
      return (typeof v === 'string' || typeof v === 'number') && leaf.value.some((x) => equals(v, x));
    default:
      switch (leaf.op) {
        case '==':
          return equals(v, leaf.value);
        case '!=':
          return !equals(v, leaf.value);
        case '<':
          return typeof v === 'number' && v < leaf.value;
        case '<=':
          return typeof v === 'number' && v <= leaf.value;
        case '>':
          return typeof v === 'number' && v > leaf.value;
        default:
          return typeof v === 'number' && v >= leaf.value;
      }
  }
}

/**
 * The deciding hook's id, null, or BAIL. Every path of the plan is read
 * first, once: a value the addon would refuse anywhere the event's hooks
 * read makes it the addon's call, whichever hook would decide.
 */
function decide(plan, context) {
  const values = new Array(plan.paths.length);
  try {
    for (let i = 0; i < plan.paths.length; i++) {
      const v = read(context, plan.paths[i]);
      if (v === BAIL) return BAIL;
      values[i] = v;
    }
  } catch (_) {
    // A getter or a Proxy trap threw: the addon reads it again and says
    // so as a ContextError, naming the path.
    return BAIL;
  }
  for (const hook of plan.hooks) {
    let holds = true;
    for (const leaf of hook.leaves) {
      if (!leafHolds(leaf, values[leaf.at])) {
        holds = false;
        break;
      }
    }
    if (holds && hook.decides) return hook.id;
  }
  return null;
}

module.exports = { BAIL, prepare, decide };
