/**
 * A whole number with thousands separators, as `toLocaleString('en-US')` writes it ("10,000"),
 * without ICU. Number formatting through `Intl` maps several MB of Node's ICU data into the
 * process on first use; the messages and schema descriptions built at start were the only reason
 * an idle server touched it (decision 0060).
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n);
  const digits = String(Math.abs(n));
  let grouped = '';
  for (let end = digits.length; end > 0; end -= 3) {
    const part = digits.slice(Math.max(0, end - 3), end);
    grouped = grouped === '' ? part : `${part},${grouped}`;
  }
  return n < 0 ? `-${grouped}` : grouped;
}
