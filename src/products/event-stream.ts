// EventStreamOutput lives in the product kit; this path stays for the HTTP door that imports it.
export { EventStreamOutput } from './kit/event-stream.ts';
