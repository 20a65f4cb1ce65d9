// Every test file's stores write far fewer than the 4,096 events a process writes natively first
// (ADR 0096): from the first event, the tests in process write them by hand, as the chain and
// tamper checks were written against, while the docket processes the tests start keep the
// default (the native JSON.stringify first). event-json.test.ts checks the switch itself in a
// module of its own.
import { setNativeEventsFirst } from "../../src/store/event-json.js";

setNativeEventsFirst(0);
