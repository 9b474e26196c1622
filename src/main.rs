fn main() {
    println!("gameserver-exporter: not implemented yet");
}
