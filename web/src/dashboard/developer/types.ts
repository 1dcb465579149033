import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../../../src/api/root.ts';

type Outputs = inferRouterOutputs<AppRouter>;

export type TokenItem = Outputs['developerSettings']['tokens']['list'][number];
export type ScopeItem = Outputs['developerSettings']['scopes'][number];
export type OAuthAppItem = Outputs['developerSettings']['apps']['list'][number];
export type GrantedAppItem = Outputs['developerSettings']['grants']['list'][number];

export type WebhookItem = Outputs['webhooks']['list']['data'][number];
export type WebhookEventKind = WebhookItem['events'][number];
export type DeliveryItem = Outputs['webhooks']['deliveries']['data'][number];
