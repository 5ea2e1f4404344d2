/**
 * A rough strength score for the follow password (DESIGN.md §4: the spec's minimum
 * of 4 characters stands, but the form shows how strong the choice is).
 * 0 too short, 1 weak, 2 fair, 3 good, 4 strong.
 */
import { LIMITS } from '../../machines/schema.ts';

export function passwordStrength(password: string): 0 | 1 | 2 | 3 | 4 {
  if (password.length < LIMITS.passwordMin) return 0;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(password)).length;
  const unique = new Set(password).size;
  let score = 1;
  if (password.length >= 8 && unique >= 5) score++;
  if (password.length >= 12 && classes >= 2) score++;
  if (password.length >= 16 || (password.length >= 12 && classes >= 3)) score++;
  return Math.min(score, 4) as 1 | 2 | 3 | 4;
}
