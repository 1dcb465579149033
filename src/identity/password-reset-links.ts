/**
 * The password reset link: where it points and what it carries. A `pwr_` token (256 random bits, checksummed as
 * every token), of which only the SHA-256 is stored; it works once, for PASSWORD_RESET_TTL_MIN minutes.
 */
export const PASSWORD_RESET_PREFIX = 'pwr_';
export const PASSWORD_RESET_TTL_MIN = 60;
/** The page that asks for the e-mail address, linked from sign-in. */
export const FORGOT_PASSWORD_PATH = '/login/forgot';
/** The page the link opens (`/login/reset/<token>`), where the new password is chosen. */
export const PASSWORD_RESET_PATH = '/login/reset';

export function passwordResetUrl(siteUrl: string, token: string): string {
  return `${siteUrl}${PASSWORD_RESET_PATH}/${token}`;
}
