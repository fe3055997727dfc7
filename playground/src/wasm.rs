//! The WebAssembly exports the page calls (`web/playground.js`): plain C
//! functions over the module's memory, so the page needs no generated
//! glue. A request goes in as UTF-8 bytes the page writes into a buffer it
//! asked [`nil_alloc`] for; [`nil_handle`] answers it and keeps the
//! answer, whose bytes the page reads at [`nil_answer_ptr`] for
//! [`nil_answer_len`] bytes.

use std::cell::RefCell;

use crate::Playground;

thread_local! {
    static PLAYGROUND: RefCell<Option<Playground>> = const { RefCell::new(None) };
    static ANSWER: RefCell<String> = const { RefCell::new(String::new()) };
}

/// A buffer of `len` bytes for the page to write a request into.
#[unsafe(no_mangle)]
pub extern "C" fn nil_alloc(len: usize) -> *mut u8 {
    let mut buffer = Vec::<u8>::with_capacity(len.max(1));
    let ptr = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    ptr
}

/// Answers the request of `len` bytes at `ptr` (a buffer from
/// [`nil_alloc`], freed here).
///
/// # Safety
/// `ptr` must come from `nil_alloc(len)`, hold `len` bytes, and not be
/// used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nil_handle(ptr: *mut u8, len: usize) {
    // SAFETY: the page wrote `len` bytes into the buffer `nil_alloc(len)`
    // gave it, whose capacity is `len.max(1)`.
    let bytes = unsafe { Vec::from_raw_parts(ptr, len, len.max(1)) };
    let answer = match String::from_utf8(bytes) {
        Ok(request) => PLAYGROUND.with(|p| {
            p.borrow_mut()
                .get_or_insert_with(Playground::new)
                .handle(&request)
        }),
        Err(_) => r#"{"error":"the request is not UTF-8"}"#.to_string(),
    };
    ANSWER.with(|a| *a.borrow_mut() = answer);
}

/// Where the last answer's bytes are.
#[unsafe(no_mangle)]
pub extern "C" fn nil_answer_ptr() -> *const u8 {
    ANSWER.with(|a| a.borrow().as_ptr())
}

/// How many bytes the last answer has.
#[unsafe(no_mangle)]
pub extern "C" fn nil_answer_len() -> usize {
    ANSWER.with(|a| a.borrow().len())
}
