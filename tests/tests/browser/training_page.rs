//! The "Training without RDMA" calculator on /nccl in real headless Chromium: a named example
//! picked, the model size typed digit by digit, the verdict agreeing with the engine's
//! step, garbage named at its field with the last answer kept, the state in the URL beside
//! the collective calculator's, and the section fitting a phone.

use engine::collective::{
    training_step, GradientFormat, TrainingRequest, DEFAULT_MFU, TRAINING_EXAMPLES,
};
use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};

#[tokio::test]
async fn the_training_step_answers_as_the_engine_does() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.goto(&site.url("/nccl")).await;
    browser.find("#train-example").await;

    // Two workstations over 10 GbE, a 70-billion-parameter model typed digit by digit.
    let example = TRAINING_EXAMPLES
        .iter()
        .find(|e| e.id == "ws2-10g")
        .expect("the example");
    browser
        .set_value("#train-example", "ws2-10g", "change")
        .await;
    browser.type_keys("#train-params", "70").await;
    let tokens: u64 = browser
        .eval("return document.querySelector('#train-tokens').value")
        .await
        .as_str()
        .unwrap()
        .trim()
        .parse()
        .expect("the tokens box holds a whole number");
    let report = training_step(&TrainingRequest {
        machines: example.machines,
        params: 70_000_000_000,
        gradients: GradientFormat::Bf16,
        tokens_per_gpu: tokens,
        mfu: DEFAULT_MFU,
    })
    .expect("the engine answers");
    let slower = report.slower_than_one_gpu();
    browser
        .wait_for_text_containing(
            ".train-verdict",
            if slower {
                "slower than one"
            } else {
                "as fast as one"
            },
        )
        .await;
    let verdict = browser.text(".train-verdict").await;
    assert!(
        verdict.contains(&format!("{} GPUs", report.gpus)),
        "{verdict}"
    );

    // Garbage after the digits: named at its field, the 70 B answer kept.
    browser.type_keys("#train-params", "70x").await;
    browser.find("#train-params-error").await;
    assert_eq!(browser.text(".train-verdict").await, verdict);

    // The state is in the URL beside the collective calculator's keys, and reloads.
    browser.type_keys("#train-params", "70").await;
    browser
        .wait_until(
            "return location.search.includes('train-params=70')",
            "the URL",
        )
        .await;
    let url = browser.eval("return location.href").await;
    let url = url.as_str().unwrap().to_string();
    assert!(
        url.contains("gpu=") && url.contains("train-example=ws2-10g"),
        "{url}"
    );
    browser.goto(&url).await;
    browser
        .wait_for_text_containing(".train-verdict", &verdict)
        .await;

    // A phone: the section fits.
    browser.resize(PHONE).await;
    browser.goto(&url).await;
    browser.find(".train-verdict").await;
    let fits = browser
        .eval("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        .await;
    assert_eq!(fits, true, "no sideways scrolling at 375 px");
    browser
        .eval("document.querySelector('.train-view').scrollIntoView(); return true")
        .await;
    browser.screenshot("training-375").await;
    browser
        .assert_no_console_errors("training calculator")
        .await;
    browser.close().await;
}
