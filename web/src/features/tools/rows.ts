/** Editing a list of rows without mutating it (React state). */
export const replaceAt = <T>(list: T[], index: number, item: T): T[] => list.map((x, i) => (i === index ? item : x));
export const removeAt = <T>(list: T[], index: number): T[] => list.filter((_, i) => i !== index);
