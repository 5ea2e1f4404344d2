/** Icons of the private area's drawer. Decorative: aria-hidden, nothing fetched. */
const PATHS: Record<string, string> = {
  status: 'M4 20V10M10 20V4M16 20v-7M22 20H2',
  messages: 'M4 5h16v11H9l-5 4zM8 9h8M8 12h5',
  report: 'M7 3h7l5 5v13H7zM14 3v5h5M10 13h6M10 17h6',
  identity: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0',
  logout: 'M14 17l5-5-5-5M19 12H8M10 3H5a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h5',
  file: 'M7 3h7l5 5v13H7zM14 3v5h5',
  attach: 'M21 11l-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7',
  send: 'M3 20l18-8L3 4l3 8zM6 12h15',
  download: 'M12 4v11M7 10l5 5 5-5M5 20h14',
  folder: 'M3 6h6l2 2h10v11H3z',
};

export function PrivateIcon({ name, size = 22 }: { name: keyof typeof PATHS | string; size?: number }) {
  const d = PATHS[name];
  if (!d) return null;
  return (
    <svg aria-hidden="true" focusable="false" width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round">
      <path d={d} />
    </svg>
  );
}
