/**
 * Which opened files of a sealed case are voice messages (issue 40): the server stores every
 * sealed file as octet-stream, so the workspace tells by the opened name, as the private
 * area does (src/private/sealed.ts), with the same table of types (machines/schema.ts).
 */
import { ALLOWED_FILE_TYPES, isAudioType } from '../../machines/schema.ts';

/** The media type of a file named `name` by its extension; octet-stream when the portal takes no such files. */
export function voiceType(name: string): string {
  const ext = name.toLowerCase().split('.').pop() ?? '';
  return Object.hasOwn(ALLOWED_FILE_TYPES, ext) ? ALLOWED_FILE_TYPES[ext as keyof typeof ALLOWED_FILE_TYPES][0]! : 'application/octet-stream';
}

export const isVoiceName = (name: string) => isAudioType(voiceType(name));
