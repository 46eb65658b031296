// An update's changes (protocol/SPEC.md, "update"): each board_compared event's comparison
// goes into match.comparisons first (in place of its board's, else in the order of
// match.boards), then the changes apply: a JSON Patch (RFC 6902) of "add" and "replace"
// operations at JSON Pointers (RFC 6901). The same rule as protocol/changes.py.

/** A change that does not fit the view held: the client should start afresh. */
export class ChangeError extends Error {}

/** A new view: `view` (left as it is) with the update's comparisons and changes applied. */
export function applyUpdate(view, update) {
  const result = structuredClone(view);
  for (const event of update.events) {
    if (event.type === "board_compared") putComparison(result, structuredClone(event.comparison));
  }
  for (const change of update.changes) applyChange(result, change);
  return result;
}

export function putComparison(view, comparison) {
  const comparisons = view?.match?.comparisons;
  if (!Array.isArray(comparisons)) throw new ChangeError("the view has no match.comparisons");
  const order = view.match.boards;
  const place = order.indexOf(comparison.board);
  if (place < 0) throw new ChangeError(`board ${comparison.board} is not one of the match's boards`);
  for (let index = 0; index < comparisons.length; index += 1) {
    if (comparisons[index].board === comparison.board) {
      comparisons[index] = comparison;
      return;
    }
    if (order.indexOf(comparisons[index].board) > place) {
      comparisons.splice(index, 0, comparison);
      return;
    }
  }
  comparisons.push(comparison);
}

function applyChange(document, change) {
  const { op, path } = change;
  if ((op !== "add" && op !== "replace") || typeof path !== "string" || !path.startsWith("/")) {
    throw new ChangeError(`not a change this protocol sends: ${JSON.stringify(change).slice(0, 100)}`);
  }
  const tokens = path.slice(1).split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
  const last = tokens.pop();
  let target = document;
  for (const token of tokens) {
    target = Array.isArray(target) ? target[index(target, token, path, false)] : step(target, token, path);
  }
  const value = structuredClone(change.value);
  if (Array.isArray(target)) {
    const at = index(target, last, path, op === "add");
    if (at === target.length) target.push(value);
    else if (op === "add") target.splice(at, 0, value);
    else target[at] = value;
  } else if (target !== null && typeof target === "object") {
    if (op === "replace" && !Object.hasOwn(target, last)) throw new ChangeError(`${path}: nothing there to replace`);
    target[last] = value;
  } else {
    throw new ChangeError(`${path}: its parent is neither a map nor a list`);
  }
}

function step(target, token, path) {
  if (target === null || typeof target !== "object" || !Object.hasOwn(target, token)) {
    throw new ChangeError(`${path}: no ${token} in the view`);
  }
  return target[token];
}

function index(list, token, path, adding) {
  if (token === "-" && adding) return list.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new ChangeError(`${path}: ${token} is not an index`);
  const at = Number(token);
  if (at > list.length || (at === list.length && !adding)) {
    throw new ChangeError(`${path}: index ${at} is past the list's end (${list.length})`);
  }
  return at;
}
