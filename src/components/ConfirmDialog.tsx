/**
 * A confirmation rendered from a machine's state (contributing.md: a confirmation is
 * a substate shown as a controlled Radix AlertDialog). It is open exactly while
 * `open` is true; its buttons only report the choice, the machine closes it.
 */
import type { ReactNode } from 'react';
import * as AlertDialog from '@radix-ui/react-alert-dialog';
import * as buttons from '../styles/button.css.ts';
import * as dialogs from '../styles/dialog.css.ts';
import { useReturnFocus } from './returnFocus.ts';

export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  description: ReactNode;
  cancelLabel: string;
  confirmLabel: string;
  onCancel: () => void;
  onConfirm: () => void;
  /** While the confirmed action runs. */
  confirmDisabled?: boolean;
  cancelDisabled?: boolean;
  /** Escape cancels (the default); false: Escape does nothing. */
  escapeCancels?: boolean;
  /** Extra class for the dialog box (a width). */
  className?: string;
}) {
  const escapeCancels = props.escapeCancels ?? true;
  const focus = useReturnFocus();
  return (
    <AlertDialog.Root open={props.open}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className={dialogs.overlay} />
        <AlertDialog.Content
          className={props.className ? `${dialogs.dialog} ${props.className}` : dialogs.dialog}
          onEscapeKeyDown={escapeCancels ? () => props.onCancel() : undefined}
          onOpenAutoFocus={focus.onOpenAutoFocus}
          onCloseAutoFocus={focus.onCloseAutoFocus}
        >
          <AlertDialog.Title className={dialogs.dialogTitle}>{props.title}</AlertDialog.Title>
          <AlertDialog.Description>{props.description}</AlertDialog.Description>
          <div className={dialogs.dialogActions}>
            <AlertDialog.Cancel asChild>
              <button type="button" className={buttons.secondaryButton} disabled={props.cancelDisabled} onClick={() => props.onCancel()}>
                {props.cancelLabel}
              </button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <button
                type="button"
                className={buttons.button}
                disabled={props.confirmDisabled}
                onClick={(e) => {
                  // The machine decides when the dialog closes, not Radix.
                  e.preventDefault();
                  props.onConfirm();
                }}
              >
                {props.confirmLabel}
              </button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
