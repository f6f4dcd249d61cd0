import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One line or bar set of a chart: a value per interval (null: nothing to show there, e.g. no runs). */
export interface ChartSeries {
  label: string;
  color: string;
  values: (number | null)[];
  /** Which y axis it is read against: the left one (counts, milliseconds) or the right one (percent). */
  axis?: 'left' | 'right';
}

export interface ChartProps {
  /** The chart's accessible name (canvas has none of its own). */
  name: string;
  /** A sentence saying what the chart shows in total, read with the name. */
  summary: string;
  /** The x axis's label for each interval. */
  labels: string[];
  series: ChartSeries[];
  kind: 'stacked-bars' | 'lines';
  /** How the left axis writes a value; `integers` keeps counts from getting 0.5 ticks. */
  left: { format: (value: number) => string; integers?: boolean; max?: number };
  right?: { format: (value: number) => string; max: number };
  /** What one interval holds, shown while the pointer is over it. */
  describe: (index: number) => string;
  /** Called with the interval clicked (the calls it counts open). */
  onPick: (index: number) => void;
}

const COUNT_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000];
/** x ticks every 1, 2, 3… intervals: hours group by 3, 6 or 12, days by a week. */
const INTERVAL_INCREMENTS = [1, 2, 3, 4, 6, 7, 12, 14, 24, 28, 30, 60, 90, 180, 365];

/**
 * A uPlot chart that fills its container's width and follows it (a ResizeObserver), so it reads on a
 * phone and on a desktop alike. Intervals are the x axis by index (not by time), so bars are evenly
 * spaced and labelled in the page's time zone by the page itself, never by uPlot's own clock.
 * Stacked bars are drawn as cumulative sums, the tallest first, each smaller one over it.
 */
export function Chart(props: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  latest.current = props;
  const [hovered, setHovered] = useState<number | null>(null);
  const shape = JSON.stringify([props.kind, props.labels, props.series, props.right?.max]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `shape` is what the chart draws; the callbacks are read through `latest`
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const { labels, series, kind, left, right } = latest.current;
    const count = labels.length;
    const stacked = kind === 'stacked-bars';
    // Stacked: the running sums, drawn from the top of the stack down so each band shows.
    const drawn = stacked ? stackedSeries(series) : series.map((s) => ({ ...s, values: [...s.values] }));
    const bars = uPlot.paths.bars?.({ size: [0.7, 48] });
    const sizeOf = () => ({ width: Math.max(element.clientWidth, 1), height: element.clientWidth < 520 ? 200 : 240 });

    const options: uPlot.Options = {
      ...sizeOf(),
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: !stacked } },
      scales: {
        x: { time: false, range: [-0.5, Math.max(count, 1) - 0.5] },
        // From zero, so bar heights compare; a little headroom over the highest value.
        y: { range: (_u, _min, max) => [0, left.max ?? (max > 0 ? max * 1.1 : 1)] },
        right: { range: [0, right?.max ?? 1] },
      },
      axes: [
        {
          incrs: INTERVAL_INCREMENTS,
          space: 56,
          grid: { show: false },
          values: (_u, splits) => splits.map((at) => (Number.isInteger(at) ? (labels[at] ?? '') : '')),
        },
        {
          scale: 'y',
          size: axisWidth,
          incrs: left.integers ? COUNT_INCREMENTS : undefined,
          values: (_u, splits) => splits.map((value) => left.format(value)),
        },
        ...(right
          ? [
              {
                scale: 'right',
                side: 1,
                size: axisWidth,
                grid: { show: false },
                values: (_u: uPlot, splits: number[]) => splits.map((value) => right.format(value)),
              },
            ]
          : []),
      ],
      series: [
        {},
        ...drawn.map((s) => ({
          label: s.label,
          scale: s.axis === 'right' ? 'right' : 'y',
          stroke: s.color,
          width: stacked ? 0 : 2,
          fill: stacked ? s.color : undefined,
          paths: stacked ? bars : undefined,
          points: { show: !stacked, size: 5, fill: s.color },
          spanGaps: false,
        })),
      ],
      hooks: {
        setCursor: [(u) => setHovered(u.cursor.idx ?? null)],
      },
    };
    const xs = Array.from({ length: count }, (_, i) => i);
    const plot = new uPlot(options, [xs, ...drawn.map((s) => s.values)], element);
    const pick = () => {
      const index = plot.cursor.idx;
      if (index !== null && index !== undefined) latest.current.onPick(index);
    };
    plot.over.addEventListener('click', pick);
    const observer = new ResizeObserver(() => {
      const size = sizeOf();
      if (size.width !== plot.width || size.height !== plot.height) plot.setSize(size);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.over.removeEventListener('click', pick);
      plot.destroy();
    };
  }, [shape]);

  return (
    <div className="chart">
      <div ref={host} className="chart-canvas" role="img" aria-label={`${props.name}. ${props.summary}`} />
      <ul className="chart-legend" aria-hidden="true">
        {props.series.map((s) => (
          <li key={s.label}>
            {/* Set through the DOM (not a style attribute in markup), which the page's CSP allows. */}
            <span className="swatch" style={{ background: s.color }} />
            {s.label}
          </li>
        ))}
      </ul>
      <p className="hint chart-readout" aria-hidden="true">
        {hovered !== null && hovered < props.labels.length
          ? `${props.describe(hovered)} · click to see these calls`
          : 'Point at a bar or point to read it; click to see its calls.'}
      </p>
    </div>
  );
}

/** A y axis as wide as its longest value (`1,200 ms`), so no label is cut at the chart's edge. */
function axisWidth(_u: uPlot, values: string[] | null): number {
  const longest = Math.max(0, ...(values ?? []).map((value) => value.length));
  return Math.max(32, longest * 7 + 18);
}

/** Running sums for stacked bars, reversed so the whole stack is drawn first and each part over it. */
function stackedSeries(series: ChartSeries[]): ChartSeries[] {
  const sums: ChartSeries[] = [];
  let running: number[] = [];
  for (const s of series) {
    running = s.values.map((value, i) => (running[i] ?? 0) + (value ?? 0));
    sums.push({ ...s, values: running });
  }
  return sums.reverse();
}
