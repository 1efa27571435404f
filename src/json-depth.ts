/**
 * Whether a parsed JSON value nests at most `max` levels, checked without recursion. JSON.parse takes
 * any depth, but what reads a value later recurses (canonical JSON, JSON.stringify, schema validators)
 * and overflows the stack a few thousand levels down.
 */
export function withinDepth(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= max) return false;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return true;
}
