/**
 * Every machine of the product, for the diagram generator and the model-coverage
 * table. A new machine is added here with one line saying what it models.
 */
import type { AnyStateMachine } from 'xstate';
import { lookAndFeelMachine } from './lookAndFeel.ts';
import { sessionMachine } from './session.ts';
import { meetingReportMachine, onlineReportMachine, oralReportMachine } from './report.ts';
import { chatMachine } from './chat.ts';
import { identityFormMachine } from './identityForm.ts';
import { reportReviewMachine } from './reportReview.ts';
import { fileCheckMachine } from './fileCheck.ts';
import { handlerSessionMachine } from './handler/session.ts';
import { enrolmentMachine } from './handler/enrolment.ts';
import { inboxMachine } from './handler/inbox.ts';
import { caseMachine } from './handler/case.ts';
import { composerMachine } from './handler/composer.ts';
import { recordEditorMachine } from './handler/recordEditor.ts';
import { keyLogMachine } from './handler/keyLog.ts';
import { sealedCaseMachine } from './handler/sealedCase.ts';
import { caseExportMachine } from './handler/caseExport.ts';
import { caseEntryMachine } from './handler/caseEntry.ts';
import { assignmentMachine } from './handler/assignment.ts';
import { notesMachine } from './handler/notes.ts';
import { statisticsMachine } from './handler/statistics.ts';
import { templatePickerMachine } from './handler/templatePicker.ts';
import { templatesMachine } from './admin/templates.ts';
import { draftMachine } from './handler/draft.ts';
import { accountsMachine } from './admin/accounts.ts';
import { operatorMachine } from './admin/operator.ts';
import { companyEditorMachine } from './admin/companyEditor.ts';
import { voiceRecorderMachine } from './voiceRecorder.ts';
import { sealedFileSaveMachine } from './sealedFileSave.ts';

export interface MachineEntry {
  machine: AnyStateMachine;
  /** One line for auditors: what this machine models. */
  summary: string;
}

export const machines: Record<string, MachineEntry> = {
  lookAndFeel: {
    machine: lookAndFeelMachine,
    summary: 'Loads the company look and feel for the display language and the company info; §8 failures go to the error page or the built-in defaults.',
  },
  session: { machine: sessionMachine, summary: 'The reporter\'s private-area session: sign-in, token verification, 60 s refresh with 70 s validity, expiry that keeps drafts, log-out and 401/403 exits.' },
  chat: { machine: chatMachine, summary: 'The private chat composer: trimmed text up to 200 characters, at most 5 files, sent only with content, upload progress, draft kept on failure.' },
  identityForm: { machine: identityFormMachine, summary: 'The private identity form (spec §5 validity, name locked once set) and the confirmed password-change request that logs out.' },
  reportReview: { machine: reportReviewMachine, summary: 'Comment on and approve a phone or meeting report: required comment, approval confirmation, offered only before approval.' },
  fileCheck: { machine: fileCheckMachine, summary: 'One attached file\'s hidden data: checked on the device, removed by default, the original kept only by an identified reporter, uncheckable types named.' },
  onlineReport: { machine: onlineReportMachine, summary: 'The online report form (spec §2, §4): 7 or 8 steps with per-step validity from the shared schemas, discard confirmations, validation dialog, sending with upload progress, success with a 2 s copied hint, failure keeping the draft.' },
  oralReport: { machine: oralReportMachine, summary: 'The oral report (by phone): subsidiary, officer, relation, identity and follow fixed on; same validation, sending, success and failure as the online form.' },
  handlerSession: { machine: handlerSessionMachine, summary: 'The handler\'s workspace session: check, sign-in with e-mail, password (as a verifier) and code, 15-minute idle clock announced one minute ahead (typing counts as activity and refreshes the session within the minute), stay signed in, 401 and sign-out (by choice: the drafts on the device discarded); beside it the keys: opened at sign-in, locked after a reload until unlocked, a refusal, a legacy account\'s new key recovery code shown once.' },
  handlerEnrolment: { machine: enrolmentMachine, summary: 'Handler enrolment from the one-time link: 12+ character password typed twice, TOTP confirmed with one code, recovery codes and the key recovery code shown once; the keys are made and sealed in the browser.' },
  handlerInbox: { machine: inboxMachine, summary: 'The handler\'s inbox: load, filter by status, channel, assignment and open cases, search by case number, sort by any column (nearest legal deadline first by default); filters and sort start from and go back to the address.' },
  handlerAssignment: { machine: assignmentMachine, summary: 'Who works on a case: its assignee and the colleagues it is shared with, among those entitled to it; assign, hand over, unassign, share and stop sharing, a refusal named by its code, the case reloaded after each act.' },
  handlerNotes: { machine: notesMachine, summary: 'A case\'s internal notes, never shown to the reporter: list, add with text, edit a note that opened, saved over the version read; a colleague\'s newer version is a conflict showing both texts with keep mine or take theirs; the own text kept on every failure.' },
  handlerCase: { machine: caseMachine, summary: 'One case for a handler: load (404 for anything not visible, 409 CASE_SEALED handed to the sealed case\'s chart), change status through a confirmation, reload after a message or record.' },
  handlerComposer: { machine: composerMachine, summary: 'The handler\'s message composer: type, answer wanted, text and files; sent only with content, draft kept on failure; a draft kept on the device restored and said so.' },
  handlerRecordEditor: { machine: recordEditorMachine, summary: 'The record of a phone or meeting report: write or edit, save for the reporter\'s review (again after an approval), a save over another handler\'s version refused with both texts and a choice; a draft kept on the device reopens the editor.' },
  handlerDraft: { machine: draftMachine, summary: 'One editor\'s draft kept on this device, sealed to the handler\'s own key: waits for the opened keys, offers a stored draft only when nothing was typed yet, seals after a pause or at once on Send, drops it when sent, saved or cancelled; an unreadable draft is dropped unseen.' },
  handlerKeyLog: { machine: keyLogMachine, summary: 'The key log in the handler\'s browser: verified against the anchor and the last head seen, or refused; the company recovery key made once and shown to print; a colleague\'s key certified after confirming its fingerprint.' },
  handlerSealedCase: { machine: sealedCaseMachine, summary: 'A sealed case in the handler\'s browser: wait for the unlocked keys, fetch the envelopes and this account\'s wrap (none: a plain "no key" message), open the key and each part on its own, a composer that seals (text kept on failure), and a grant of the case\'s key to a colleague from the verified key log through a confirmation.' },
  handlerCaseExport: { machine: caseExportMachine, summary: 'Exporting a case: choose the parts (the identity only by an explicit tick), mark names and passages to black out, the server records the act in the audit trail, then the browser makes the PDF and the zip; a refusal or a failure to make is `failed`, with a new try.' },
  handlerCaseEntry: { machine: caseEntryMachine, summary: 'Entering a report that came by letter, e-mail or in person: the content as the online form has it, the channel and the received day checked by the shared rules, then sealed in the browser (or sent to a server-keyed company) and the slip shown once with the case number and the generated password; leaving the slip asks first, a refusal keeps the draft.' },
  handlerStatistics: { machine: statisticsMachine, summary: 'The statistics page in the handler\'s browser: the statistics keys checked against the verified key log, their private halves opened with the handler\'s key, every case\'s categories box counted here; a certified handler makes the key, a holder gives it to a colleague certified later, a certified holder makes a new one (each through a confirmation); a handler without it is told who can give it.' },
  handlerTemplatePicker: { machine: templatePickerMachine, summary: "Reply templates in the composer: the company's templates loaded once, one chosen, its text in the reporter's language (else the company's default) inserted, replacing or adding to typed text only through a confirmation." },
  adminTemplates: { machine: templatesMachine, summary: "A company administrator's reply templates: list, a new template or an edit (a name and one text per company language, checked by the shared rules), removal through a confirmation; a refused save keeps the draft." },
  adminAccounts: { machine: accountsMachine, summary: "A company administrator's accounts: list, invite (link mailed or shown once), disable, enable, reset, end sessions and remove through a confirmation, an account's tokens with revoking, the administration trail." },
  operatorCompanies: { machine: operatorMachine, summary: "The operator's companies: list, a new company from its company file with its first administrator, whose enrolment link is shown once." },
  companyEditor: { machine: companyEditorMachine, summary: 'The company editor: one draft of the company file checked by its own rules on every change, a landing-page preview per language, save and revert as new versions through confirmations, 409 when someone saved meanwhile.' },
  voiceRecorder: { machine: voiceRecorderMachine, summary: 'A voice message recorded in the browser: microphone asked on start (refused, missing, unsupported told apart), level and elapsed time, pause, the company\'s maximum length, review of the disguised and own voice by the disguise policy, attach, discard with confirmation.' },
  sealedFileSave: { machine: sealedFileSaveMachine, summary: 'Saving a file of a sealed case in the private area: one at a time, opened as it downloads and written where the reporter picks; a closed picker is no failure, a file that does not open is named.' },
  meetingReport: { machine: meetingReportMachine, summary: 'Book a meeting: the oral report\'s steps and rules, sent to the meeting endpoint.' },
};
