//! `SYSTOLIC_CPU_DEVICES` and `SYSTOLIC_TPUS` choose `Client::from_env`'s devices (alone in its
//! test binary, since it sets the process environment).

use systolic_runtime::{Client, CPU_DEVICES_ENV, TPUS_ENV};

fn names(client: &Client) -> Vec<String> {
    client.devices().iter().map(|d| d.to_string()).collect()
}

/// One test: the variables are process-wide, and tests of one binary run in parallel.
#[test]
fn the_environment_chooses_cpu_devices_independent_chips_and_slices() {
    std::env::set_var(CPU_DEVICES_ENV, "4");
    std::env::set_var(TPUS_ENV, "none");
    let client = Client::from_env().unwrap();
    assert_eq!(names(&client), ["cpu:0", "cpu:1", "cpu:2", "cpu:3"]);

    std::env::set_var(TPUS_ENV, "v5e:2x2, v6e:2, v5p:2x2x2*2");
    let client = Client::from_env().unwrap();
    let all = names(&client);
    assert_eq!(all.len(), 4 + 4 + 2 + 16);
    assert_eq!(
        all[4..8],
        ["tpu:v5e:0", "tpu:v5e:1", "tpu:v5e:2", "tpu:v5e:3"]
    );
    assert_eq!(all[8..10], ["tpu:v6e:0", "tpu:v6e:1"]);
    assert_eq!(all[25], "tpu:v5p:15");
    let v5e3 = client.device("tpu:v5e:3").unwrap();
    assert_eq!(v5e3.coords(), Some(vec![1, 1]));
    assert!(client.device("tpu:v6e:1").unwrap().coords().is_none());
    let v5p = client.device("tpu:v5p:15").unwrap();
    assert_eq!((v5p.slice_index(), v5p.process_index()), (Some(1), 3));
    assert_eq!(v5p.slice().unwrap().to_string(), "v5p:2x2x2*2");

    // The CPU count alone, with TPUs unset: the default chips.
    std::env::remove_var(TPUS_ENV);
    std::env::set_var(CPU_DEVICES_ENV, "2");
    let client = Client::from_env().unwrap();
    assert_eq!(names(&client)[..2], ["cpu:0", "cpu:1"]);
    assert!(client.device("tpu:v5e:0").is_ok());

    // Malformed values name the variable and say why.
    for bad in ["0", "two", "-3"] {
        std::env::set_var(CPU_DEVICES_ENV, bad);
        let err = Client::from_env().unwrap_err();
        assert!(
            err.starts_with(&format!("{CPU_DEVICES_ENV}={bad}: ")),
            "{err}"
        );
    }
    std::env::set_var(CPU_DEVICES_ENV, "1");
    for (bad, why) in [
        ("v5e:four", "neither a device count nor a slice topology"),
        ("v5e:4x4x4", "2D"),
        ("v5p:2x2x2*0", "at least 1"),
        ("tpu7x:2x2", "tpu7x"),
    ] {
        std::env::set_var(TPUS_ENV, bad);
        let err = Client::from_env().unwrap_err();
        assert!(err.starts_with(&format!("{TPUS_ENV}={bad}: ")), "{err}");
        assert!(err.contains(why), "{bad}: {err}");
    }
    std::env::remove_var(TPUS_ENV);
    std::env::remove_var(CPU_DEVICES_ENV);
}
