/**
 * Whether this browser can record a voice message here (issue 40): a secure page, the
 * microphone allowed by the page's Permissions-Policy, getUserMedia, MediaRecorder,
 * and Web Audio with AudioWorklet (which Tor Browser does not offer). Asks nothing:
 * the microphone is requested only when the reporter starts a recording.
 */
export function canRecordVoice(): boolean {
  if (typeof window === 'undefined' || !window.isSecureContext) return false;
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') return false;
  if (typeof AudioContext === 'undefined' || typeof AudioWorkletNode === 'undefined') return false;
  // Chromium tells the page's policy; a denied microphone would only fail later.
  const policy = (document as Document & { featurePolicy?: { allowsFeature(f: string): boolean } }).featurePolicy;
  if (policy && !policy.allowsFeature('microphone')) return false;
  return true;
}

/** The best recording format this browser offers: Opus in WebM, else Opus in Ogg, else MP4 (Safari). */
export function recordingFormat(): { mimeType: string; fileType: string; extension: string } | null {
  const options = [
    { mimeType: 'audio/webm;codecs=opus', fileType: 'audio/webm', extension: 'webm' },
    { mimeType: 'audio/ogg;codecs=opus', fileType: 'audio/ogg', extension: 'ogg' },
    { mimeType: 'audio/mp4', fileType: 'audio/mp4', extension: 'mp4' },
  ];
  return options.find((o) => MediaRecorder.isTypeSupported(o.mimeType)) ?? null;
}
