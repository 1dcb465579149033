import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import type { RouterOutputs as Outputs } from '../../api.ts';
import { dateKey, formatDateTime, formatHour, formatTime, formatWeekDay, formatWeekday, type LocalDate, minuteOfDay } from '../../time.ts';
import {
  type BusyBlock,
  type BusyInterval,
  busyBlocks,
  type Cell,
  cellMinutes,
  type DaySpan,
  dayCells,
  dayKeyOf,
  visibleHours,
  type WeekSchedule,
  weekOf,
  workingHours,
} from './week.ts';

type BusyTime = Outputs['availability']['busy']['data'][number];

const HOUR_PX = 48;
const ARROWS: Record<string, [number, number]> = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

function toBusyInterval(busy: BusyTime): BusyInterval {
  const label = busy.source === 'booking' ? 'Booked' : busy.source === 'hold' ? 'Held' : busy.connectionName;
  return { start: busy.start, end: busy.end, label };
}

interface Day {
  date: LocalDate;
  hours: DaySpan[];
  blocks: BusyBlock[];
  cells: Cell[];
}

/**
 * Seven day columns over the hours worth showing: working hours white, busy blocks grey, and one button per row
 * that explains its time (an offered one is blue). On a phone one day shows at a time, picked above the grid.
 * Arrow keys move between times; Tab leaves the grid.
 */
export function WeekGrid(props: {
  monday: LocalDate;
  today: LocalDate;
  timeZone: string;
  schedule: WeekSchedule;
  busy: BusyTime[] | null;
  offered: { start: string }[];
  durationMin: number | undefined;
  chosen: number | null;
  onChoose?: (instant: number) => void;
}) {
  const { timeZone } = props;
  const dates = weekOf(props.monday);
  const todayIndex = dates.findIndex((date) => dateKey(date) === dateKey(props.today));
  const [selected, setSelected] = useState(Math.max(todayIndex, 0));
  const [focus, setFocus] = useState({ col: Math.max(todayIndex, 0), row: 0, move: false });
  const bodyRef = useRef<HTMLDivElement>(null);

  const busy = (props.busy ?? []).map(toBusyInterval);
  const offered = props.offered.map((slot) => Date.parse(slot.start));
  const step = cellMinutes(props.durationMin);
  const spans = dates.flatMap((date) => [
    ...workingHours(props.schedule, date),
    // A block over the whole day (an all-day event) does not stretch the grid to 24 hours.
    ...busyBlocks(busy, date, timeZone).filter((block) => block.end - block.start < 1440),
  ]);
  for (const start of offered) spans.push({ start: minuteOfDay(start, timeZone), end: minuteOfDay(start, timeZone) + (props.durationMin ?? step) });
  const hours = visibleHours(spans);
  const days: Day[] = dates.map((date) => ({
    date,
    hours: workingHours(props.schedule, date),
    blocks: busyBlocks(busy, date, timeZone),
    cells: dayCells(date, hours, step, offered.filter((start) => dayKeyOf(start, timeZone) === dateKey(date)), timeZone),
  }));
  const rows = days[0]?.cells.length ?? 0;

  useEffect(() => {
    if (!focus.move) return;
    bodyRef.current?.querySelector<HTMLButtonElement>(`[data-col="${focus.col}"][data-row="${focus.row}"]`)?.focus();
  }, [focus]);

  const onKeyDown = (event: KeyboardEvent) => {
    const arrow = ARROWS[event.key];
    if (!arrow) return;
    event.preventDefault();
    const col = Math.min(6, Math.max(0, focus.col + arrow[0]));
    const row = Math.min(rows - 1, Math.max(0, focus.row + arrow[1]));
    setSelected(col);
    setFocus({ col, row, move: true });
  };
  const place = (span: DaySpan) => {
    const top = Math.max(span.start, hours.start);
    const bottom = Math.min(span.end, hours.end);
    return bottom > top ? { top: ((top - hours.start) / 60) * HOUR_PX, height: ((bottom - top) / 60) * HOUR_PX } : null;
  };

  return (
    <div className="week-grid">
      <div className="week-head">
        {days.map((day, col) => (
          <button
            key={dateKey(day.date)}
            type="button"
            className={`week-day${col === selected ? ' is-selected' : ''}${col === todayIndex ? ' is-today' : ''}`}
            aria-pressed={col === selected}
            aria-label={`Show ${formatWeekDay(day.date)}`}
            onClick={() => setSelected(col)}
          >
            <span>{formatWeekday(day.date)}</span>
            <span className="week-day-date">{day.date.day}</span>
          </button>
        ))}
      </div>
      <div className="week-body" ref={bodyRef} style={{ height: ((hours.end - hours.start) / 60) * HOUR_PX }} onKeyDown={onKeyDown}>
        <div className="week-axis" aria-hidden="true">
          {Array.from({ length: (hours.end - hours.start) / 60 }, (_, i) => hours.start + i * 60).map((minute) => (
            <span key={minute} style={{ top: ((minute - hours.start) / 60) * HOUR_PX }}>
              {formatHour(minute)}
            </span>
          ))}
        </div>
        {days.map((day, col) => (
          // biome-ignore lint/a11y/useSemanticElements: a labelled group of one day's times
          <div key={dateKey(day.date)} className={`week-col${col === selected ? ' is-selected' : ''}`} role="group" aria-label={formatWeekDay(day.date)}>
            {day.hours.map((span) => {
              const at = place(span);
              return at && <div key={`h${span.start}`} className="week-hours" style={at} />;
            })}
            {day.blocks.map((block) => {
              const at = place(block);
              return (
                at && (
                  <div key={`b${block.start}-${block.label}`} className="week-busy" style={at} data-testid="busy-block" aria-hidden="true">
                    <span>{block.label}</span>
                  </div>
                )
              );
            })}
            {day.cells.map((cell, row) => (
              <button
                key={cell.row}
                type="button"
                className={`week-cell${cell.offered ? ' is-offered' : ''}${props.chosen === cell.instant ? ' is-chosen' : ''}`}
                style={{ top: ((cell.row - hours.start) / 60) * HOUR_PX, height: (step / 60) * HOUR_PX }}
                data-col={col}
                data-row={row}
                tabIndex={col === focus.col && row === focus.row ? 0 : -1}
                disabled={!props.onChoose}
                aria-label={cellLabel(cell, day.blocks, timeZone)}
                onFocus={() => setFocus({ col, row, move: false })}
                onClick={() => props.onChoose?.(cell.instant)}
              >
                {cell.offered && step >= 30 ? formatTime(new Date(cell.instant).toISOString(), timeZone) : ''}
              </button>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}


/** "Thu, Nov 26, 2026, 10:00 AM", then whether it is offered or busy, for screen readers. */
function cellLabel(cell: Cell, blocks: readonly BusyBlock[], timeZone: string): string {
  const when = formatDateTime(new Date(cell.instant).toISOString(), timeZone);
  if (cell.offered) return `${when}, offered`;
  const busy = blocks.find((block) => block.start <= cell.row && block.end > cell.row);
  return busy ? `${when}, busy: ${busy.label}` : when;
}
