import { PersonalAccessTokenEntity } from '../identity/personal-access-token.entity.ts';
import { LoginAttemptEntity, SessionEntity } from '../identity/session.entity.ts';
import { AvailabilityScheduleEntity } from '../modules/availability/availability-schedule.entity.ts';
import { UserEntity } from '../identity/user.entity.ts';
import { OAuthAuthorizationCodeEntity } from '../oauth/oauth-authorization-code.entity.ts';
import { OAuthClientEntity } from '../oauth/oauth-client.entity.ts';
import { OAuthGrantEntity } from '../oauth/oauth-grant.entity.ts';
import { OAuthAccessTokenEntity, OAuthRefreshTokenEntity } from '../oauth/oauth-token.entity.ts';

/** Every entity the ORM knows; a domain adds its own here. */
export const entities = [
  UserEntity,
  PersonalAccessTokenEntity,
  AvailabilityScheduleEntity,
  SessionEntity,
  LoginAttemptEntity,
  OAuthClientEntity,
  OAuthGrantEntity,
  OAuthAuthorizationCodeEntity,
  OAuthRefreshTokenEntity,
  OAuthAccessTokenEntity,
];
