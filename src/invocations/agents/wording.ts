/** How agents count in their summaries (issue #37: "1 artifact", never "1 artifacts"). */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
