package org.example.inventory;

import java.util.HashMap;
import java.util.Map;

public class Inventory {
    private final Map<String, Item> items = new HashMap<>();
    private final Map<String, Integer> quantities = new HashMap<>();

    public void add(Item item, int quantity) {
        if (!items.containsKey(item.getName())) {
            items.put(item.getName(), item);
            quantities.put(item.getName(), 0);
        }
        quantities.put(item.getName(), quantities.get(item.getName()) + quantity);
    }

    public int quantity(String name) {
        return quantities.getOrDefault(name, 0);
    }

    public Item find(String name) {
        return items.get(name);
    }
}
