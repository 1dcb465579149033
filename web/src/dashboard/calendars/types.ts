import type { RouterOutputs as Outputs } from '../../api.ts';

export type Connection = Outputs['calendars']['list']['data'][number];
export type ConnectedCalendar = Connection['calendars'][number];
