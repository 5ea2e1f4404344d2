/**
 * Identity settings: lifetimes, throttle and account expiry. Defaults follow
 * DESIGN.md §3–4; tests shorten them through `ServerConfig.identity`.
 */
import { DEFAULT_THROTTLE, type ThrottleSettings } from './throttle.ts';

export interface IdentitySettings {
  /** Access token (JWT) lifetime, seconds. */
  accessTokenTtl: number;
  idTokenTtl: number;
  /** Each refresh token lives this long unused; every use rotates it. */
  refreshTokenTtl: number;
  /** The sign-in session: refresh tokens end with it. */
  sessionTtl: number;
  interactionTtl: number;
  throttle: ThrottleSettings;
  /** A follow account never signed in this many days after creation is deleted. */
  accountExpiryDays: number;
  sweepIntervalMs: number;
  /**
   * Another OpenID provider whose access tokens the private API accepts as well
   * (docs/identity.md, "Pointing the portal at another OpenID provider"); also
   * published as `config.json` `idSettings.authority`. From `OIDC_ISSUER`.
   */
  externalIssuer?: string;
  /** The `aud` its access tokens must carry; without it, `azp` must be our client id. From `OIDC_AUDIENCE`. */
  externalAudience?: string;
}

declare module '../config.ts' {
  interface ServerConfig {
    /** Overrides of the identity provider's settings (server/idp/settings.ts). */
    identity?: Partial<Omit<IdentitySettings, 'throttle'>> & { throttle?: Partial<ThrottleSettings> };
  }
}

export const DEFAULT_IDENTITY: IdentitySettings = {
  accessTokenTtl: 5 * 60,
  idTokenTtl: 60 * 60,
  refreshTokenTtl: 30 * 60,
  sessionTtl: 8 * 60 * 60,
  interactionTtl: 30 * 60,
  throttle: DEFAULT_THROTTLE,
  accountExpiryDays: 10,
  sweepIntervalMs: 60 * 60 * 1000,
};

function wholeNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number of at least 0 (got "${value}")`);
  return n;
}

/** The burst settings an operator sets in the environment (docs/operations.md). */
function throttleFromEnv(env: NodeJS.ProcessEnv): Partial<ThrottleSettings> {
  const threshold = wholeNumber(env.SIGNIN_BURST_THRESHOLD, 'SIGNIN_BURST_THRESHOLD');
  const windowSeconds = wholeNumber(env.SIGNIN_BURST_WINDOW_SECONDS, 'SIGNIN_BURST_WINDOW_SECONDS');
  const difficulty = wholeNumber(env.SIGNIN_POW_DIFFICULTY, 'SIGNIN_POW_DIFFICULTY');
  return {
    ...(threshold === undefined ? {} : { burstThreshold: threshold }),
    ...(windowSeconds === undefined ? {} : { burstWindowMs: Math.max(1, windowSeconds) * 1000 }),
    ...(difficulty === undefined ? {} : { powDifficulty: difficulty }),
  };
}

export function identitySettings(over: import('../config.ts').ServerConfig['identity'], env: NodeJS.ProcessEnv = process.env): IdentitySettings {
  return {
    ...DEFAULT_IDENTITY,
    externalIssuer: env.OIDC_ISSUER?.replace(/\/$/, '') || undefined,
    externalAudience: env.OIDC_AUDIENCE || undefined,
    ...over,
    throttle: { ...DEFAULT_THROTTLE, ...throttleFromEnv(env), ...over?.throttle },
  };
}
